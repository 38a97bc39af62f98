ALTER TABLE `orders` ADD `seats` text;--> statement-breakpoint
ALTER TABLE `tickets` ADD `seat` text DEFAULT '' NOT NULL;
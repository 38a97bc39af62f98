ALTER TABLE `orders` ADD `payment_group` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `finalize_token` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `orders_payment_group` ON `orders` (`payment_group`);
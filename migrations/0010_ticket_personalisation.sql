ALTER TABLE `tickets` ADD `personalisation` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `tickets` ADD `personalised_at` integer;
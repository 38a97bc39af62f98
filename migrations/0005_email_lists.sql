CREATE TABLE `email_list_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`email_key` text NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`max_tickets` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_list_entries_event_email` ON `email_list_entries` (`event_id`,`email_key`);
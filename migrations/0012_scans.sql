CREATE TABLE `scans` (
	`event_id` integer NOT NULL,
	`seq` integer NOT NULL,
	`ticket_id` text NOT NULL,
	`order_id` integer NOT NULL,
	`ticket_type_id` text NOT NULL,
	`ticket_type` text NOT NULL,
	`level` integer NOT NULL,
	`location` text NOT NULL,
	`scanned_at` integer NOT NULL,
	`reloaded` integer DEFAULT false NOT NULL,
	PRIMARY KEY(`event_id`, `seq`)
);
--> statement-breakpoint
CREATE INDEX `scans_ticket` ON `scans` (`ticket_id`,`seq`);--> statement-breakpoint
CREATE INDEX `scans_event_type` ON `scans` (`event_id`,`ticket_type_id`);
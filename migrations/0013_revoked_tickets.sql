CREATE TABLE `revoked_tickets` (
	`ticket_id` text PRIMARY KEY NOT NULL,
	`event_id` integer NOT NULL,
	`revoked_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `revoked_tickets_event` ON `revoked_tickets` (`event_id`,`revoked_at`);
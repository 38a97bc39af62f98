CREATE TABLE `waiting_list` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`ticket_type_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`email_key` text NOT NULL,
	`count` integer NOT NULL,
	`lang` text DEFAULT 'en' NOT NULL,
	`state` text DEFAULT 'waiting' NOT NULL,
	`offered_at` integer,
	`offer_expires_at` integer,
	`token_hash` text,
	`order_uid` text,
	`synced` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`modified_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `waiting_list_one_per_email` ON `waiting_list` (`event_id`,`ticket_type_id`,`email_key`) WHERE state <> 'deleted';--> statement-breakpoint
CREATE INDEX `waiting_list_event` ON `waiting_list` (`event_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `waiting_list_token` ON `waiting_list` (`token_hash`) WHERE token_hash IS NOT NULL;--> statement-breakpoint
CREATE INDEX `waiting_list_unsynced` ON `waiting_list` (`modified_at`) WHERE synced = 0;--> statement-breakpoint
ALTER TABLE `events` ADD `waiting_list_needed` integer DEFAULT false NOT NULL;
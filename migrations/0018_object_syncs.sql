CREATE TABLE `object_syncs` (
	`uid` text NOT NULL,
	`event_id` integer NOT NULL,
	`token` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`uid`, `event_id`)
);
--> statement-breakpoint
CREATE INDEX `object_syncs_created` ON `object_syncs` (`created_at`);
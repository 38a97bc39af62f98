ALTER TABLE `events` ADD `search_name` text DEFAULT '' NOT NULL;--> statement-breakpoint
UPDATE `events` SET `search_name` = lower(`event_name`);

CREATE TABLE `daily_quotas` (
	`action` text NOT NULL,
	`user_id` integer NOT NULL,
	`day` text NOT NULL,
	`used` integer NOT NULL,
	PRIMARY KEY(`action`, `user_id`, `day`)
);
--> statement-breakpoint
CREATE INDEX `daily_quotas_day` ON `daily_quotas` (`day`);
CREATE TABLE `emails` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`to` text NOT NULL,
	`bcc` text DEFAULT '' NOT NULL,
	`from_name` text DEFAULT '' NOT NULL,
	`from_email` text DEFAULT '' NOT NULL,
	`subject` text NOT NULL,
	`body` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text DEFAULT '' NOT NULL,
	`event_id` integer DEFAULT 0 NOT NULL,
	`order_id` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`due_at` integer NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
CREATE INDEX `emails_event` ON `emails` (`event_id`);--> statement-breakpoint
CREATE INDEX `emails_order` ON `emails` (`order_id`);--> statement-breakpoint
CREATE INDEX `emails_queued` ON `emails` (`status`,`due_at`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`webhook_id` integer NOT NULL,
	`topic` text NOT NULL,
	`event_id` integer DEFAULT 0 NOT NULL,
	`body` text NOT NULL,
	`source` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_exchange` text,
	`created_at` integer NOT NULL,
	`due_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_webhook` ON `webhook_deliveries` (`webhook_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_pending` ON `webhook_deliveries` (`status`,`due_at`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`secret` text NOT NULL,
	`topic` text NOT NULL,
	`enabled` integer DEFAULT false NOT NULL,
	`retry_scheme` text NOT NULL,
	`failure_threshold` integer DEFAULT 60 NOT NULL,
	`pending` integer DEFAULT 0 NOT NULL,
	`delivered` integer DEFAULT 0 NOT NULL,
	`retries` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`last_success` integer,
	`last_retry` integer,
	`last_failure` integer,
	`created_at` integer NOT NULL
);

CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_name` text NOT NULL,
	`timezone` text NOT NULL,
	`event_date` integer,
	`event_date_format` text NOT NULL,
	`start_date` integer,
	`end_date` integer,
	`stock` integer DEFAULT 0 NOT NULL,
	`sold` integer DEFAULT 0 NOT NULL,
	`stock_link` integer DEFAULT 0 NOT NULL,
	`group_type` integer DEFAULT 0 NOT NULL,
	`event_group` text DEFAULT '' NOT NULL,
	`redirect` text DEFAULT '' NOT NULL,
	`order_submit_text` text DEFAULT '' NOT NULL,
	`terms` text DEFAULT '' NOT NULL,
	`email` text NOT NULL,
	`email_confirmation` text NOT NULL,
	`confirmation_timeout` integer DEFAULT 0 NOT NULL,
	`unique_event_ids` text NOT NULL,
	`user_groups` text NOT NULL,
	`seats` text NOT NULL,
	`ticket_pdf` text NOT NULL,
	`emails_needed` integer DEFAULT false NOT NULL,
	`tickets_needed` integer DEFAULT false NOT NULL,
	`invoice_needed` integer DEFAULT false NOT NULL,
	`unique_users_needed` integer DEFAULT false NOT NULL,
	`user_groups_needed` integer DEFAULT false NOT NULL,
	`recaptcha_needed` integer DEFAULT false NOT NULL,
	`confirmation_emails_needed` integer DEFAULT false NOT NULL,
	`add_dashboard_orders_needed` integer DEFAULT false NOT NULL,
	`test_payments_needed` integer DEFAULT false NOT NULL,
	`seats_needed` integer DEFAULT false NOT NULL,
	`webhooks_needed` integer DEFAULT false NOT NULL,
	`reload_on_exit_needed` integer DEFAULT false NOT NULL,
	`coupons_needed` integer DEFAULT false NOT NULL,
	`config_version` integer DEFAULT 1 NOT NULL,
	`pushed_version` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`modified_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_name` ON `events` (`event_name`);--> statement-breakpoint
CREATE INDEX `events_date` ON `events` (`event_date`);--> statement-breakpoint
CREATE INDEX `events_pending_push` ON `events` (`pushed_version`,`config_version`);--> statement-breakpoint
CREATE TABLE `input_fields` (
	`event_id` integer NOT NULL,
	`id` text NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`type` text DEFAULT 'text' NOT NULL,
	`value` text DEFAULT '' NOT NULL,
	`min` text DEFAULT '' NOT NULL,
	`max` text DEFAULT '' NOT NULL,
	`is_required` integer DEFAULT false NOT NULL,
	`is_personalised` integer DEFAULT false NOT NULL,
	PRIMARY KEY(`event_id`, `id`),
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `input_fields_name_unique` ON `input_fields` (`event_id`,`name`);--> statement-breakpoint
CREATE TABLE `orders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer NOT NULL,
	`uid` text NOT NULL,
	`payment_id` text DEFAULT '' NOT NULL,
	`payment_status` text NOT NULL,
	`custom_status` text DEFAULT '' NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orders_uid_unique` ON `orders` (`uid`);--> statement-breakpoint
CREATE INDEX `orders_event` ON `orders` (`event_id`);--> statement-breakpoint
CREATE TABLE `pdf_templates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`title` text NOT NULL,
	`type` text DEFAULT 'ticket' NOT NULL,
	`author_id` integer NOT NULL,
	`file_key` text NOT NULL,
	`created_at` integer NOT NULL,
	`modified_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `pdf_templates_author` ON `pdf_templates` (`author_id`);--> statement-breakpoint
CREATE TABLE `scan_keys` (
	`key` text PRIMARY KEY NOT NULL,
	`event_id` integer NOT NULL,
	`position` integer NOT NULL,
	`level` integer NOT NULL,
	`tickets` text NOT NULL,
	`date_format` text NOT NULL,
	`location` text NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `scan_keys_location_unique` ON `scan_keys` (`event_id`,`location`);--> statement-breakpoint
CREATE TABLE `ticket_types` (
	`event_id` integer NOT NULL,
	`id` text NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`price_cents` integer NOT NULL,
	`volume_price` text NOT NULL,
	`vat_hundredths` integer DEFAULT 0 NOT NULL,
	`stock_control` integer DEFAULT false NOT NULL,
	`stock` integer DEFAULT 0 NOT NULL,
	`sold` integer DEFAULT 0 NOT NULL,
	`minimum_to_order` integer DEFAULT 0 NOT NULL,
	`maximum_to_order` integer DEFAULT 10 NOT NULL,
	`is_counted` integer DEFAULT true NOT NULL,
	`show_remaining` integer DEFAULT false NOT NULL,
	`attachment_id` integer DEFAULT 0 NOT NULL,
	`personalise` text NOT NULL,
	`layout` text NOT NULL,
	PRIMARY KEY(`event_id`, `id`),
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_types_name_unique` ON `ticket_types` (`event_id`,`name`);--> statement-breakpoint
CREATE TABLE `tickets` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	`ticket_type_id` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tickets_order` ON `tickets` (`order_id`);--> statement-breakpoint
CREATE INDEX `tickets_event` ON `tickets` (`event_id`);
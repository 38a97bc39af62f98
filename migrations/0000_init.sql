CREATE TABLE `application_passwords` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`password_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `application_passwords_hash_unique` ON `application_passwords` (`password_hash`);--> statement-breakpoint
CREATE INDEX `application_passwords_user` ON `application_passwords` (`user_id`);--> statement-breakpoint
CREATE TABLE `logs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` integer DEFAULT 0 NOT NULL,
	`order_id` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`log_type` text NOT NULL,
	`description` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `logs_created` ON `logs` (`created_at`);--> statement-breakpoint
CREATE INDEX `logs_order` ON `logs` (`order_id`);--> statement-breakpoint
CREATE INDEX `logs_event` ON `logs` (`event_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`username` text NOT NULL,
	`email` text NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`role` text NOT NULL,
	`authorised_events` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_unique` ON `users` (lower("username"));--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (lower("email")) WHERE email <> '';
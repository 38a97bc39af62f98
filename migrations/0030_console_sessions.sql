-- Browser sessions of the organiser console (decisions.md 15): hashed tokens, ended with their user or application password.
CREATE TABLE `console_sessions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token_hash` text NOT NULL,
	`csrf_hash` text NOT NULL,
	`user_id` integer NOT NULL,
	`password_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`password_id`) REFERENCES `application_passwords`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `console_sessions_token_unique` ON `console_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `console_sessions_user` ON `console_sessions` (`user_id`);--> statement-breakpoint
CREATE INDEX `console_sessions_password` ON `console_sessions` (`password_id`);--> statement-breakpoint
CREATE INDEX `console_sessions_last_used` ON `console_sessions` (`last_used_at`);
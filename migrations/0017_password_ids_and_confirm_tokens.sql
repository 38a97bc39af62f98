-- Application passwords get a uuid (their name in the list and in the DELETE that revokes one) and last_used_at.
-- SQLite cannot add a NOT NULL column without a default, so the table is rebuilt; every existing password gets a
-- random version-4 uuid made from randomblob (evaluated per row).
CREATE TABLE `__new_application_passwords` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`password_hash` text NOT NULL,
	`uuid` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_application_passwords` (`id`, `user_id`, `name`, `password_hash`, `uuid`, `created_at`)
SELECT `id`, `user_id`, `name`, `password_hash`,
	lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-'
		|| substr('89AB', 1 + abs(random() % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))),
	`created_at`
FROM `application_passwords`;
--> statement-breakpoint
DROP TABLE `application_passwords`;--> statement-breakpoint
ALTER TABLE `__new_application_passwords` RENAME TO `application_passwords`;--> statement-breakpoint
CREATE UNIQUE INDEX `application_passwords_hash_unique` ON `application_passwords` (`password_hash`);--> statement-breakpoint
CREATE INDEX `application_passwords_user` ON `application_passwords` (`user_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `application_passwords_uuid_unique` ON `application_passwords` (`uuid`);--> statement-breakpoint
-- Confirmation links carry their own token; the order uid, shown in API answers, no longer confirms.
ALTER TABLE `orders` ADD `confirm_token` text;--> statement-breakpoint
-- Orders still waiting for their customer get one now: 40 hex characters, 160 random bits.
UPDATE `orders` SET `confirm_token` = hex(randomblob(20)) WHERE `awaits_confirmation` = 1;--> statement-breakpoint
-- Their confirmation emails not yet sent are rewritten to carry it. Emails already sent hold the uid link, which
-- now answers 404: such an order can no longer be confirmed and goes at its confirmation timeout.
UPDATE `emails`
SET `body` = (
	SELECT replace(`emails`.`body`, '/orders/confirm/' || `orders`.`uid`, '/orders/confirm/' || `orders`.`confirm_token`)
	FROM `orders` WHERE `orders`.`id` = `emails`.`order_id`
)
WHERE `status` = 'queued' AND `order_id` IN (SELECT `id` FROM `orders` WHERE `awaits_confirmation` = 1);--> statement-breakpoint
CREATE UNIQUE INDEX `orders_confirm_token_unique` ON `orders` (`confirm_token`) WHERE confirm_token IS NOT NULL;

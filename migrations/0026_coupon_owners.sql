DROP INDEX `coupons_code_key`;--> statement-breakpoint
ALTER TABLE `coupons` ADD `owner_id` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- decisions.md 15: a coupon belongs to its creating user (0: the administrators). The creator was never recorded, so
-- a coupon goes to the organizer who could see it before (authorised for all its events; the lowest id of several),
-- else to the administrators. Codes were unique across the service, so no owner gets a code twice.
UPDATE `coupons` SET `owner_id` = coalesce((
  SELECT u.id FROM users AS u
  WHERE u.role = 'organizer' AND json_array_length(coupons.events) > 0
    AND NOT EXISTS (SELECT 1 FROM json_each(coupons.events) AS e WHERE e.value NOT IN (SELECT value FROM json_each(u.authorised_events)))
  ORDER BY u.id LIMIT 1
), 0);--> statement-breakpoint
CREATE UNIQUE INDEX `coupons_code_owner` ON `coupons` (`code_key`,`owner_id`);

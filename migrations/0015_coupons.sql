CREATE TABLE `coupons` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`code` text NOT NULL,
	`code_key` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`type` text NOT NULL,
	`individual_use` integer DEFAULT false NOT NULL,
	`amount_hundredths` integer DEFAULT 0 NOT NULL,
	`usage_limit` integer DEFAULT 0 NOT NULL,
	`usage_limit_per_user` integer DEFAULT 0 NOT NULL,
	`used` integer DEFAULT 0 NOT NULL,
	`last_used` integer,
	`start_date` integer,
	`end_date` integer,
	`events` text DEFAULT '[]' NOT NULL,
	`tickets` text DEFAULT '[]' NOT NULL,
	`minimum_tickets` integer DEFAULT 0 NOT NULL,
	`maximum_tickets` integer DEFAULT 0 NOT NULL,
	`minimum_amount_cents` integer DEFAULT 0 NOT NULL,
	`maximum_amount_cents` integer DEFAULT 0 NOT NULL,
	`email` text DEFAULT '' NOT NULL,
	`email_key` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`modified_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `coupons_code_key` ON `coupons` (`code_key`);--> statement-breakpoint
CREATE INDEX `coupons_email_key` ON `coupons` (`email_key`);--> statement-breakpoint
ALTER TABLE `orders` ADD `coupon_id` integer;--> statement-breakpoint
CREATE INDEX `orders_coupon` ON `orders` (`coupon_id`);--> statement-breakpoint
-- A coupon's uses are `used` (final orders, cleared by reset-counters) plus the orders holding it while open or
-- awaiting confirmation. An order that would pass `usage_limit` (0: none), or `usage_limit_per_user` counted over
-- the live orders of the same email, is refused inside its own batch, so parallel orders cannot both slip under it.
CREATE TRIGGER orders_coupon_usage_limit BEFORE INSERT ON orders
WHEN NEW.coupon_id IS NOT NULL AND EXISTS (
  SELECT 1 FROM coupons AS c
  WHERE c.id = NEW.coupon_id AND c.usage_limit > 0
    AND c.used + (SELECT count(*) FROM orders AS o WHERE o.coupon_id = c.id AND (o.payment_status = 'open' OR o.awaits_confirmation = 1)) >= c.usage_limit
)
BEGIN
  SELECT RAISE(ABORT, 'CHECK constraint failed: coupons.usage_limit');
END;
--> statement-breakpoint
CREATE TRIGGER orders_coupon_usage_limit_per_user BEFORE INSERT ON orders
WHEN NEW.coupon_id IS NOT NULL AND EXISTS (
  SELECT 1 FROM coupons AS c
  WHERE c.id = NEW.coupon_id AND c.usage_limit_per_user > 0
    AND (SELECT count(*) FROM orders AS o
         WHERE o.coupon_id = c.id AND o.email_key = NEW.email_key
           AND o.payment_status IN ('open', 'paid', 'dashboard', 'booked', 'booked - confirmed', 'dashboard - confirmed')) >= c.usage_limit_per_user
)
BEGIN
  SELECT RAISE(ABORT, 'CHECK constraint failed: coupons.usage_limit_per_user');
END;

ALTER TABLE `orders` ADD `checkout_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Orders placed before: their payment id is still the checkout's while they wait (open, expired), so a late or
-- repeated notice for them is matched as for new ones (decisions.md 15 "Payments are matched, not trusted").
UPDATE `orders` SET `checkout_id` = `payment_id` WHERE substr(`payment_id`, 1, 3) = 'cs_' OR substr(`payment_id`, 1, 5) = 'test_';

ALTER TABLE `orders` ADD `checkout_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Orders placed before: their payment id is still the checkout's while they wait (open, expired), so a late or
-- repeated notice for them is matched as for new ones (decisions.md 15 "Payments are matched, not trusted").
UPDATE `orders` SET `checkout_id` = `payment_id` WHERE substr(`payment_id`, 1, 3) = 'cs_' OR substr(`payment_id`, 1, 5) = 'test_';--> statement-breakpoint
-- At most NEW.units open orders per event and buyer key (email, or keyed hash of the address) for ordering-key
-- callers (decisions.md 15 "Open orders per buyer"): the claim is refused inside the order's batch, so parallel
-- orders cannot all slip under the limit. Only claims whose order is still open count.
CREATE TRIGGER order_claims_open_insert BEFORE INSERT ON order_claims
WHEN NEW.kind IN ('open', 'open_address') AND (
  SELECT count(*) FROM order_claims AS c JOIN orders AS o ON o.uid = c.order_uid
  WHERE c.kind = NEW.kind AND c.event_id = NEW.event_id AND c.email_key = NEW.email_key AND o.payment_status = 'open'
) >= NEW.units
BEGIN
  SELECT RAISE(ABORT, 'CHECK constraint failed: order_claims.open');
END;

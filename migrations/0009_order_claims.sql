CREATE TABLE `order_claims` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`event_id` integer NOT NULL,
	`email_key` text NOT NULL,
	`order_uid` text NOT NULL,
	`units` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `order_claims_unique` ON `order_claims` (`event_id`,`email_key`) WHERE kind = 'unique';--> statement-breakpoint
CREATE INDEX `order_claims_order` ON `order_claims` (`order_uid`);--> statement-breakpoint
CREATE INDEX `order_claims_cap` ON `order_claims` (`event_id`,`email_key`,`kind`);--> statement-breakpoint
ALTER TABLE `orders` ADD `awaits_confirmation` integer DEFAULT false NOT NULL;--> statement-breakpoint
-- An email list's third column caps the tickets one person may buy across their live orders; the order's claim is
-- refused inside its batch when it would pass the cap (0: no cap), so parallel orders cannot both slip under it.
CREATE TRIGGER order_claims_cap_insert BEFORE INSERT ON order_claims
WHEN NEW.kind = 'cap' AND EXISTS (
  SELECT 1 FROM email_list_entries AS e
  WHERE e.event_id = NEW.event_id AND e.email_key = NEW.email_key AND e.max_tickets > 0
    AND NEW.units + coalesce((SELECT sum(units) FROM order_claims AS c WHERE c.kind = 'cap' AND c.event_id = NEW.event_id AND c.email_key = NEW.email_key), 0) > e.max_tickets
)
BEGIN
  SELECT RAISE(ABORT, 'CHECK constraint failed: order_claims.cap');
END;

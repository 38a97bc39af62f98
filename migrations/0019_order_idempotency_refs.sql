ALTER TABLE `orders` ADD `idempotency_ref` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `checkout_url` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `orders_idempotency_ref` ON `orders` (`idempotency_ref`) WHERE idempotency_ref IS NOT NULL;
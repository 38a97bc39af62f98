CREATE TABLE `sales_counts` (
	`event_id` integer NOT NULL,
	`payment_status` text NOT NULL,
	`awaits_confirmation` integer NOT NULL,
	`orders` integer DEFAULT 0 NOT NULL,
	`cents` integer DEFAULT 0 NOT NULL,
	`tickets` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`event_id`, `payment_status`, `awaits_confirmation`)
);
--> statement-breakpoint
CREATE TABLE `sales_type_counts` (
	`event_id` integer NOT NULL,
	`payment_status` text NOT NULL,
	`ticket_type` text NOT NULL,
	`sold` integer DEFAULT 0 NOT NULL,
	`orders` integer DEFAULT 0 NOT NULL,
	`cents` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`event_id`, `payment_status`, `ticket_type`)
);
--> statement-breakpoint
CREATE TABLE `scan_counts` (
	`event_id` integer NOT NULL,
	`ticket_type` text NOT NULL,
	`location` text NOT NULL,
	`level` integer NOT NULL,
	`scans` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`event_id`, `ticket_type`, `location`, `level`)
);
--> statement-breakpoint
CREATE TABLE `ticket_counts` (
	`event_id` integer NOT NULL,
	`ticket_type` text NOT NULL,
	`valid` integer DEFAULT 0 NOT NULL,
	`scanned` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`event_id`, `ticket_type`)
);

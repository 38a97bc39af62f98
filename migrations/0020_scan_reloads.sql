-- Reloading exits whose unit D1 gave back: a reset deletes the exit's scan row, and a late copy of the exit must
-- not give the unit back again. The exits already written have given theirs.
CREATE TABLE `scan_reloads` (
	`event_id` integer NOT NULL,
	`seq` integer NOT NULL,
	PRIMARY KEY(`event_id`, `seq`)
);
--> statement-breakpoint
INSERT INTO `scan_reloads` (`event_id`, `seq`) SELECT `event_id`, `seq` FROM `scans` WHERE `reloaded` = 1;

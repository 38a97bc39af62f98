CREATE TABLE `scan_admissions` (
	`event_id` integer NOT NULL,
	`bucket_start` integer NOT NULL,
	`admitted` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`event_id`, `bucket_start`)
);
--> statement-breakpoint
-- Entrance scans per event and five minutes of their scan time (epoch ms rounded down to 300,000), for the
-- console's live chart (decisions.md 15 "The organiser console"), kept by triggers like the report counters of
-- migration 0023: every scan row of level 0 written adds one to its five minutes, every one deleted (a reset
-- deletes the ticket's earlier rows) takes it out again. They count entrances as they happened: a scan row is
-- only written for a scan the event object admitted. First the entrances already there.
INSERT INTO scan_admissions (event_id, bucket_start, admitted)
SELECT event_id, scanned_at - scanned_at % 300000, count(*) FROM scans WHERE level = 0 GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER scans_admissions_insert AFTER INSERT ON scans
WHEN NEW.level = 0
BEGIN
  INSERT INTO scan_admissions (event_id, bucket_start, admitted)
  VALUES (NEW.event_id, NEW.scanned_at - NEW.scanned_at % 300000, 1)
  ON CONFLICT DO UPDATE SET admitted = admitted + excluded.admitted;
END;
--> statement-breakpoint
CREATE TRIGGER scans_admissions_delete AFTER DELETE ON scans
WHEN OLD.level = 0
BEGIN
  INSERT INTO scan_admissions (event_id, bucket_start, admitted)
  VALUES (OLD.event_id, OLD.scanned_at - OLD.scanned_at % 300000, -1)
  ON CONFLICT DO UPDATE SET admitted = admitted + excluded.admitted;
END;
--> statement-breakpoint
-- A scan row changed in place (nothing does so today): taken out as it was, put in as it is.
CREATE TRIGGER scans_admissions_update_old AFTER UPDATE OF event_id, level, scanned_at ON scans
WHEN OLD.level = 0
BEGIN
  INSERT INTO scan_admissions (event_id, bucket_start, admitted)
  VALUES (OLD.event_id, OLD.scanned_at - OLD.scanned_at % 300000, -1)
  ON CONFLICT DO UPDATE SET admitted = admitted + excluded.admitted;
END;
--> statement-breakpoint
CREATE TRIGGER scans_admissions_update_new AFTER UPDATE OF event_id, level, scanned_at ON scans
WHEN NEW.level = 0
BEGIN
  INSERT INTO scan_admissions (event_id, bucket_start, admitted)
  VALUES (NEW.event_id, NEW.scanned_at - NEW.scanned_at % 300000, 1)
  ON CONFLICT DO UPDATE SET admitted = admitted + excluded.admitted;
END;

-- A ticket type's `personalise` and `layout` lists name input fields of its event. These triggers keep that true
-- inside the writing statement, so a concurrent delete, rename or un-personalise of a field cannot leave a list
-- naming a field that is gone (a check made before the write could be overtaken).
CREATE TRIGGER ticket_types_references_insert BEFORE INSERT ON ticket_types
WHEN EXISTS (
  SELECT 1 FROM json_each(NEW.personalise) AS p
  WHERE NOT EXISTS (SELECT 1 FROM input_fields AS f WHERE f.event_id = NEW.event_id AND f.name = p.value AND f.is_personalised = 1)
) OR EXISTS (
  SELECT 1 FROM json_each(NEW.layout) AS l
  WHERE l.value NOT IN ('Order-id', 'Name', 'Email')
    AND NOT EXISTS (SELECT 1 FROM input_fields AS f WHERE f.event_id = NEW.event_id AND f.name = l.value)
)
BEGIN
  SELECT RAISE(ABORT, 'CHECK constraint failed: ticket_types.references');
END;
--> statement-breakpoint
CREATE TRIGGER ticket_types_references_update BEFORE UPDATE OF personalise, layout ON ticket_types
WHEN EXISTS (
  SELECT 1 FROM json_each(NEW.personalise) AS p
  WHERE NOT EXISTS (SELECT 1 FROM input_fields AS f WHERE f.event_id = NEW.event_id AND f.name = p.value AND f.is_personalised = 1)
) OR EXISTS (
  SELECT 1 FROM json_each(NEW.layout) AS l
  WHERE l.value NOT IN ('Order-id', 'Name', 'Email')
    AND NOT EXISTS (SELECT 1 FROM input_fields AS f WHERE f.event_id = NEW.event_id AND f.name = l.value)
)
BEGIN
  SELECT RAISE(ABORT, 'CHECK constraint failed: ticket_types.references');
END;
--> statement-breakpoint
CREATE TRIGGER input_fields_referenced_delete BEFORE DELETE ON input_fields
WHEN EXISTS (
  SELECT 1 FROM ticket_types AS t
  WHERE t.event_id = OLD.event_id
    AND (EXISTS (SELECT 1 FROM json_each(t.personalise) WHERE value = OLD.name)
      OR EXISTS (SELECT 1 FROM json_each(t.layout) WHERE value = OLD.name))
)
BEGIN
  SELECT RAISE(ABORT, 'CHECK constraint failed: input_fields.referenced');
END;
--> statement-breakpoint
CREATE TRIGGER input_fields_personalised_update BEFORE UPDATE OF is_personalised ON input_fields
WHEN OLD.is_personalised = 1 AND NEW.is_personalised = 0 AND EXISTS (
  SELECT 1 FROM ticket_types AS t
  WHERE t.event_id = OLD.event_id AND EXISTS (SELECT 1 FROM json_each(t.personalise) WHERE value = OLD.name)
)
BEGIN
  SELECT RAISE(ABORT, 'CHECK constraint failed: input_fields.referenced');
END;

-- A session inserted without a layout version takes its venue's newest one (D64, migration 0215):
-- the session writers need not know about versions; the layouts service names one when it moves
-- sessions.
CREATE OR REPLACE FUNCTION sessions_default_layout() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.layout_id IS NULL THEN
    NEW.layout_id := (SELECT id FROM venue_layouts WHERE venue_id = NEW.venue_id ORDER BY version DESC LIMIT 1);
  END IF;
  RETURN NEW;
END $$;

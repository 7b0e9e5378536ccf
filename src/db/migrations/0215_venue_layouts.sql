-- Venue layouts (D64, docs/venues.md): numbered versions of a venue's seat map. A version is
-- immutable: its document (the Taquilla layout JSON, kept exactly as saved so that a pretix plan
-- exports as it came) and its seats (rows of `seats` with its layout_id). Sectors are the venue's,
-- shared by every version (rates, check-in lists and order items keep their sector ids); `retired`
-- marks a sector that the newest version no longer has. A session uses one version (layout_id):
-- a new version moves the upcoming sessions onto it (layouts.service.ts).
CREATE TABLE venue_layouts (
  id serial PRIMARY KEY,
  venue_id integer NOT NULL REFERENCES venues(id) ON DELETE CASCADE,
  version integer NOT NULL CHECK (version >= 1),
  document jsonb NOT NULL,
  -- The focal point best available measures distances to (D61); null: none.
  focal_x real,
  focal_y real,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (venue_id, version)
);

ALTER TABLE sectors ADD COLUMN retired boolean NOT NULL DEFAULT false;

ALTER TABLE seats ADD COLUMN layout_id integer REFERENCES venue_layouts(id) ON DELETE CASCADE;
-- Seat flags may already exist (the best-available work adds wheelchair and companion): IF NOT EXISTS.
ALTER TABLE seats ADD COLUMN IF NOT EXISTS category text;
ALTER TABLE seats ADD COLUMN IF NOT EXISTS wheelchair boolean NOT NULL DEFAULT false;
ALTER TABLE seats ADD COLUMN IF NOT EXISTS companion boolean NOT NULL DEFAULT false;
ALTER TABLE seats ADD COLUMN IF NOT EXISTS restricted_view boolean NOT NULL DEFAULT false;
-- The row's priority for best available (D61): higher rows are offered first; 0 by default.
ALTER TABLE seats ADD COLUMN row_priority integer NOT NULL DEFAULT 0;

ALTER TABLE sessions ADD COLUMN layout_id integer REFERENCES venue_layouts(id);

-- Existing venues: their map becomes version 1 (positions absolute, rows in seat order).
INSERT INTO venue_layouts (venue_id, version, document, created_at)
SELECT v.id, 1, jsonb_build_object('sectors', coalesce((
    SELECT jsonb_agg(CASE WHEN sc.numbered
      THEN jsonb_build_object('name', sc.name, 'numbered', true, 'rows', coalesce((
        SELECT jsonb_agg(jsonb_build_object('label', r.row, 'seats', r.seats) ORDER BY r.first_id)
        FROM (SELECT st.row, min(st.id) AS first_id,
                     jsonb_agg(jsonb_build_object('number', st.number, 'x', st.x, 'y', st.y) ORDER BY st.id) AS seats
              FROM seats st WHERE st.sector_id = sc.id GROUP BY st.row) r), '[]'::jsonb))
      ELSE jsonb_build_object('name', sc.name, 'numbered', false, 'capacity', sc.capacity) END
      ORDER BY sc.sort_order, sc.id)
    FROM sectors sc WHERE sc.venue_id = v.id), '[]'::jsonb)), v.created_at
FROM venues v;

UPDATE seats st SET layout_id = l.id
FROM sectors sc, venue_layouts l
WHERE sc.id = st.sector_id AND l.venue_id = sc.venue_id AND l.version = 1;
UPDATE sessions s SET layout_id = l.id FROM venue_layouts l WHERE l.venue_id = s.venue_id AND l.version = 1;

ALTER TABLE seats ALTER COLUMN layout_id SET NOT NULL;
-- A seat is one (sector, row, number) per version, no longer per venue.
ALTER TABLE seats DROP CONSTRAINT seats_sector_id_row_number_key;
CREATE UNIQUE INDEX seats_layout_place_idx ON seats (layout_id, sector_id, row, number);

-- A session made without naming a version (every writer but the layouts service) takes the
-- venue's newest one, so that the session writers need not know about versions.
-- The body is src/db/functions/017_sessions_default_layout.sql; this placeholder exists for CREATE TRIGGER.
CREATE FUNCTION sessions_default_layout() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END; $$;
CREATE TRIGGER sessions_default_layout BEFORE INSERT ON sessions
  FOR EACH ROW EXECUTE FUNCTION sessions_default_layout();

-- History only for the functions: their CURRENT bodies are src/db/functions/276_session_inventory_on_seats.sql
-- and 277_session_inventory_rebuild.sql, re-applied after the migrations on every start; defined
-- here in full because the backfill below and every write after this migration need them.

-- The sales overview's inventory (issue 30, D66; docs/audience.md "How the figures are kept"):
-- capacity, sold, held, free and blocked per session and sector were counted over every place of
-- the event's sessions on each request (220,000 rows on bench:report). Kept here per session,
-- sector and slot (the writing backend's, as sales_figures) by statement triggers on session_seats.
-- `held` is the places whose status is held, expired holds included: the overview subtracts the
-- expired ones, which it counts among the held places only (session_seats_held_idx).
CREATE TABLE session_inventory (
  session_id integer NOT NULL,
  sector_id integer NOT NULL,
  slot smallint NOT NULL,
  seats integer NOT NULL,
  sold integer NOT NULL,
  held integer NOT NULL,
  blocked integer NOT NULL,
  PRIMARY KEY (session_id, sector_id, slot)
);

-- The held places of a session, to count the expired holds (free, D15) at read time. Only a place
-- that becomes held gets an entry (a sold or available one does not), and hold_expires_at is not
-- in it: extending a hold stays a HOT update.
CREATE INDEX session_seats_held_idx ON session_seats (session_id, sector_id) WHERE status = 'held';

-- Statement triggers of session_seats (migration 0271): the kept inventory counts per session and
-- sector (session_inventory) follow every insert, status change and delete of its places. One
-- upsert per (session, sector) whose counts changed, in key order, into this backend's slot (as
-- sales_figures_add): a hold of several seats of one sector is one upsert; a statement that changes
-- no status (a hold extended, a layout's seat renamed) writes nothing.
CREATE OR REPLACE FUNCTION session_inventory_on_seats() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_slot smallint := (pg_backend_pid() % 8)::smallint;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    INSERT INTO session_inventory AS v (session_id, sector_id, slot, seats, sold, held, blocked)
    SELECT d.session_id, d.sector_id, v_slot, sum(d.seats), sum(d.sold), sum(d.held), sum(d.blocked)
    FROM (SELECT n.session_id, n.sector_id, 1 AS seats, (n.status = 'sold')::int AS sold, (n.status = 'held')::int AS held,
                 (n.status = 'blocked')::int AS blocked
          FROM new_seats n
          UNION ALL
          SELECT o.session_id, o.sector_id, -1, -(o.status = 'sold')::int, -(o.status = 'held')::int, -(o.status = 'blocked')::int
          FROM old_seats o) d
    GROUP BY d.session_id, d.sector_id
    HAVING (sum(d.seats), sum(d.sold), sum(d.held), sum(d.blocked)) <> (0, 0, 0, 0)
    ORDER BY d.session_id, d.sector_id
    ON CONFLICT (session_id, sector_id, slot) DO UPDATE
      SET seats = v.seats + EXCLUDED.seats, sold = v.sold + EXCLUDED.sold, held = v.held + EXCLUDED.held, blocked = v.blocked + EXCLUDED.blocked;
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO session_inventory AS v (session_id, sector_id, slot, seats, sold, held, blocked)
    SELECT n.session_id, n.sector_id, v_slot, count(*), count(*) FILTER (WHERE n.status = 'sold'),
           count(*) FILTER (WHERE n.status = 'held'), count(*) FILTER (WHERE n.status = 'blocked')
    FROM new_seats n
    GROUP BY n.session_id, n.sector_id
    ORDER BY n.session_id, n.sector_id
    ON CONFLICT (session_id, sector_id, slot) DO UPDATE
      SET seats = v.seats + EXCLUDED.seats, sold = v.sold + EXCLUDED.sold, held = v.held + EXCLUDED.held, blocked = v.blocked + EXCLUDED.blocked;
  ELSE
    INSERT INTO session_inventory AS v (session_id, sector_id, slot, seats, sold, held, blocked)
    SELECT o.session_id, o.sector_id, v_slot, -count(*), -count(*) FILTER (WHERE o.status = 'sold'),
           -count(*) FILTER (WHERE o.status = 'held'), -count(*) FILTER (WHERE o.status = 'blocked')
    FROM old_seats o
    GROUP BY o.session_id, o.sector_id
    ORDER BY o.session_id, o.sector_id
    ON CONFLICT (session_id, sector_id, slot) DO UPDATE
      SET seats = v.seats + EXCLUDED.seats, sold = v.sold + EXCLUDED.sold, held = v.held + EXCLUDED.held, blocked = v.blocked + EXCLUDED.blocked;
  END IF;
  RETURN NULL;
END;
$$;

-- The kept inventory counts (session_inventory, migration 0271) recomputed from session_seats, all
-- in slot 0: the migration's backfill and the repair after a load that bypassed the triggers
-- (bench/report.bench.ts), like sales_figures_rebuild. Returns the number of rows written.
CREATE OR REPLACE FUNCTION session_inventory_rebuild() RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_rows bigint;
BEGIN
  LOCK TABLE session_seats IN SHARE MODE;
  DELETE FROM session_inventory;
  INSERT INTO session_inventory (session_id, sector_id, slot, seats, sold, held, blocked)
  SELECT session_id, sector_id, 0, count(*), count(*) FILTER (WHERE status = 'sold'),
         count(*) FILTER (WHERE status = 'held'), count(*) FILTER (WHERE status = 'blocked')
  FROM session_seats
  GROUP BY session_id, sector_id;
  GET DIAGNOSTICS v_rows = ROW_COUNT;
  RETURN v_rows;
END;
$$;

-- Transition tables need one trigger per event (and allow no column list): every statement that
-- writes session_seats runs one of these once, whatever its number of rows.
CREATE TRIGGER session_inventory_seats_insert AFTER INSERT ON session_seats
  REFERENCING NEW TABLE AS new_seats FOR EACH STATEMENT EXECUTE FUNCTION session_inventory_on_seats();
CREATE TRIGGER session_inventory_seats_update AFTER UPDATE ON session_seats
  REFERENCING OLD TABLE AS old_seats NEW TABLE AS new_seats FOR EACH STATEMENT EXECUTE FUNCTION session_inventory_on_seats();
CREATE TRIGGER session_inventory_seats_delete AFTER DELETE ON session_seats
  REFERENCING OLD TABLE AS old_seats FOR EACH STATEMENT EXECUTE FUNCTION session_inventory_on_seats();

-- Backfill, after the triggers (CREATE TRIGGER blocks writes to session_seats until this commits).
SELECT session_inventory_rebuild();

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

-- Statement triggers of session_seats on insert and delete (migrations 0271, 0330): the kept count of
-- places per session and sector (session_inventory) follows the places made and removed (a session
-- created, a layout version saved). One upsert per (session, sector), in key order, into this
-- backend's slot (as sales_figures_add). A status change (a hold, a sale) writes nothing here: the
-- overview counts sold, held and blocked places elsewhere (overview.repo.ts keptInventory), so that
-- the purchase path pays for no inventory write.
CREATE OR REPLACE FUNCTION session_inventory_on_seats() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_slot smallint := (pg_backend_pid() % 8)::smallint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO session_inventory AS v (session_id, sector_id, slot, seats)
    SELECT n.session_id, n.sector_id, v_slot, count(*)
    FROM new_seats n
    GROUP BY n.session_id, n.sector_id
    ORDER BY n.session_id, n.sector_id
    ON CONFLICT (session_id, sector_id, slot) DO UPDATE SET seats = v.seats + EXCLUDED.seats;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO session_inventory AS v (session_id, sector_id, slot, seats)
    SELECT o.session_id, o.sector_id, v_slot, -count(*)
    FROM old_seats o
    GROUP BY o.session_id, o.sector_id
    ORDER BY o.session_id, o.sector_id
    ON CONFLICT (session_id, sector_id, slot) DO UPDATE SET seats = v.seats + EXCLUDED.seats;
  END IF;
  RETURN NULL;
END;
$$;

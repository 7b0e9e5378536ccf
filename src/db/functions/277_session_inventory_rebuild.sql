-- The kept place counts (session_inventory, migrations 0271 and 0330) recomputed from session_seats,
-- all in slot 0: the migration's backfill and the repair after a load that bypassed the triggers
-- (bench/report.bench.ts), like sales_figures_rebuild. Returns the number of rows written.
CREATE OR REPLACE FUNCTION session_inventory_rebuild() RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_rows bigint;
BEGIN
  LOCK TABLE session_seats IN SHARE MODE;
  DELETE FROM session_inventory;
  INSERT INTO session_inventory (session_id, sector_id, slot, seats)
  SELECT session_id, sector_id, 0, count(*)
  FROM session_seats
  GROUP BY session_id, sector_id;
  GET DIAGNOSTICS v_rows = ROW_COUNT;
  RETURN v_rows;
END;
$$;

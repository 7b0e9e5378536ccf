-- A rate may price an inventory row when it is a rate of the row's session and either names no
-- sector or names the row's sector. The TypeScript twin is rateFitsUnit in
-- src/modules/orders/orders.pricing.ts (the full cart path checks requests it has already loaded);
-- test/orders/hold-paths.property.test.ts holds the two to the same answers.
-- Inlined by the planner like seat_is_free (LANGUAGE sql, IMMUTABLE, one expression).
CREATE OR REPLACE FUNCTION rate_fits_seat(
  p_rate_session_id integer, p_rate_sector_id integer, p_session_id integer, p_sector_id integer
) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_rate_session_id = p_session_id AND (p_rate_sector_id IS NULL OR p_rate_sector_id = p_sector_id)
$$;

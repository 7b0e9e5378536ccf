-- D15: an inventory row is free when it is available, or held by a cart whose hold has expired.
-- The one definition of "free": every claim (cart_hold_seat, close_order, the cart's and the
-- reservation's repos) and every availability count (catalogue, storefront) calls it.
--
-- LANGUAGE sql, IMMUTABLE, not STRICT, one expression: the planner inlines it into the calling
-- query, so `WHERE id = $1 AND seat_is_free(status, hold_expires_at, $2)` is planned exactly as the
-- expression written out (same index, same plan; a function call per row would be slower). Keep it
-- that way: a non-inlined SQL function is re-planned on every call on PostgreSQL 15.
-- NULL (held without an expiry, which the schema never writes) is "not free" to a WHERE.
CREATE OR REPLACE FUNCTION seat_is_free(p_status text, p_hold_expires_at timestamptz, p_now timestamptz) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p_status = 'available' OR (p_status = 'held' AND p_hold_expires_at <= p_now)
$$;

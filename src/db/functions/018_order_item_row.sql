-- One item of an order's rows (order_rows_build, 019): its ids and amounts as a JSON array.
CREATE OR REPLACE FUNCTION order_item_row(
  p_id bigint, p_event_id integer, p_session_id integer, p_sector_id integer, p_session_seat_id integer, p_rate_id integer,
  p_base integer, p_discount integer, p_fee integer, p_total integer
) RETURNS json
-- STABLE as json_build_array is (a function declared more strictly than its body is not inlined).
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  -- [id, event_id, session_id, sector_id, session_seat_id, rate_id, base, discount, fee, total]
  SELECT json_build_array(p_id, p_event_id, p_session_id, p_sector_id, p_session_seat_id, p_rate_id, p_base, p_discount, p_fee, p_total)
$$;

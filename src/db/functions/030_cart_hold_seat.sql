-- One seat held for a cart in one statement (plpgsql resolves cart_hold_seats at call time, so the
-- file order does not matter): kept with its old signature for the benchmarks'
-- database-only scripts (bench/flash.bench.ts, bench/holds.bench.ts), which call it by name. It is
-- the set-based hold (cart_hold_seats, 031_cart_hold_seats.sql, the one home of the hold's rules)
-- with one seat; its outcomes are that function's. The service calls cart_hold_seats directly.
CREATE OR REPLACE FUNCTION cart_hold_seat(
  p_channel_id integer, p_order_token text, p_create boolean, p_reference text, p_lang text, p_currency text,
  p_new_expiry timestamptz, p_session_seat_id bigint, p_rate_id bigint, p_max_items integer, p_now timestamptz,
  p_buyer_key text, p_max_live_orders integer
) RETURNS json
LANGUAGE plpgsql AS $$
BEGIN
  RETURN cart_hold_seats(p_channel_id, p_order_token, p_create, p_reference, p_lang, p_currency, p_new_expiry,
                         ARRAY[p_session_seat_id], ARRAY[p_rate_id], p_max_items, p_now, p_buyer_key, p_max_live_orders, false);
END;
$$;

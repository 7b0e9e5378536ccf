-- Trims of the flash-sale hold path (issue 3, bench:holds); the answers do not change.
--  * order_items_order_idx (order_id) goes: order_items_report_idx (order_id, event_id) INCLUDE
--    (id, session_id) of migration 0040 serves every lookup by order_id, and each item inserted
--    paid for both.
--  * cart_hold_seat answers a seat that is already taken before writing anything, and inserts a new
--    order with its first item's totals instead of inserting it and then updating it.
DROP INDEX order_items_order_idx;

-- cart_hold_seat of 0027 with the two changes above.
CREATE OR REPLACE FUNCTION cart_hold_seat(
  p_channel_id integer, p_order_token text, p_create boolean, p_reference text, p_lang text, p_currency text,
  p_new_expiry timestamptz, p_session_seat_id bigint, p_rate_id bigint, p_max_items integer, p_now timestamptz
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_order_id bigint;
  v_status text;
  v_expires timestamptz;
  v_seat record;
  v_price integer;
  v_fee integer;
  v_claimed integer;
BEGIN
  -- The order first (locked), as the full path does, so that its item count is current.
  IF NOT p_create THEN
    SELECT id, status, expires_at INTO v_order_id, v_status, v_expires
    FROM orders WHERE order_token = p_order_token AND channel_id = p_channel_id FOR UPDATE;
    IF v_order_id IS NULL OR v_status <> 'pending' OR (v_expires IS NOT NULL AND v_expires <= p_now)
       OR EXISTS (SELECT 1 FROM order_vouchers WHERE order_id = v_order_id)
       OR (SELECT count(*) FROM order_items WHERE order_id = v_order_id) + 1 > p_max_items THEN
      RETURN json_build_object('outcome', 'fallback');
    END IF;
  END IF;

  -- The seat as the channel may sell it, and its rate.
  SELECT ss.id, ss.session_id, se.event_id, ss.sector_id, ss.seat_id, st.row, st.number, sec.name AS sector_name,
         (se.status = 'on_sale' AND e.status = 'published') AS on_sale,
         (ss.status = 'available' OR (ss.status = 'held' AND ss.hold_expires_at <= p_now)) AS looks_free
  INTO v_seat
  FROM session_seats ss
  JOIN sessions se ON se.id = ss.session_id
  JOIN events e ON e.id = se.event_id
  JOIN channel_events ce ON ce.event_id = e.id AND ce.channel_id = p_channel_id
  JOIN sectors sec ON sec.id = ss.sector_id
  LEFT JOIN seats st ON st.id = ss.seat_id
  WHERE ss.id = p_session_seat_id;
  IF v_seat.id IS NULL OR v_seat.seat_id IS NULL OR NOT v_seat.on_sale OR p_max_items < 1 THEN
    RETURN json_build_object('outcome', 'fallback');
  END IF;
  SELECT price INTO v_price FROM rates
  WHERE id = p_rate_id AND session_id = v_seat.session_id AND (sector_id IS NULL OR sector_id = v_seat.sector_id);
  IF v_price IS NULL THEN
    RETURN json_build_object('outcome', 'fallback');
  END IF;

  -- Management fees of the event and the session (pricing.ts feeFor: percent in basis points,
  -- rounded half away from zero).
  SELECT COALESCE(sum(CASE WHEN f.kind = 'fixed' THEN f.amount
                           ELSE sign(v_price) * round(abs(v_price)::numeric * f.amount / 10000) END), 0)::integer
  INTO v_fee
  FROM fees f WHERE f.event_id = v_seat.event_id OR f.session_id = v_seat.session_id;

  -- A seat already taken is answered before anything is written: in a flash sale many picks lose,
  -- and a new order inserted only to be deleted again is wasted work. The claim below still decides.
  IF NOT v_seat.looks_free THEN
    RETURN json_build_object('outcome', 'seat_unavailable', 'session_seat_id', v_seat.id,
                             'sector_name', v_seat.sector_name, 'row', v_seat.row, 'number', v_seat.number);
  END IF;

  -- A new order is inserted with its first item's totals, so that it is written once.
  IF p_create THEN
    INSERT INTO orders (order_token, reference, channel_id, lang, currency, expires_at, created_at, updated_at,
                        base_amount, fee_amount, total_amount)
    VALUES (p_order_token, p_reference, p_channel_id, p_lang, p_currency, p_new_expiry, p_now, p_now,
            v_price, v_fee, v_price + v_fee)
    ON CONFLICT DO NOTHING
    RETURNING id, expires_at INTO v_order_id, v_expires;
    IF v_order_id IS NULL THEN
      RETURN json_build_object('outcome', 'fallback');
    END IF;
  END IF;
  v_expires := COALESCE(v_expires, p_new_expiry);

  -- The claim (D14): a conditional UPDATE whose row count decides; an expired hold is free (D15).
  UPDATE session_seats SET status = 'held', order_id = v_order_id, hold_expires_at = v_expires
  WHERE id = v_seat.id AND (status = 'available' OR (status = 'held' AND hold_expires_at <= p_now));
  GET DIAGNOSTICS v_claimed = ROW_COUNT;
  IF v_claimed = 0 THEN
    IF p_create THEN
      DELETE FROM orders WHERE id = v_order_id;
    END IF;
    RETURN json_build_object('outcome', 'seat_unavailable', 'session_seat_id', v_seat.id,
                             'sector_name', v_seat.sector_name, 'row', v_seat.row, 'number', v_seat.number);
  END IF;

  INSERT INTO order_items (order_id, event_id, session_id, sector_id, session_seat_id, rate_id,
                           base_amount, discount_amount, fee_amount, total_amount, created_at)
  VALUES (v_order_id, v_seat.event_id, v_seat.session_id, v_seat.sector_id, v_seat.id, p_rate_id,
          v_price, 0, v_fee, v_price + v_fee, p_now);
  IF NOT p_create THEN
    UPDATE orders SET base_amount = base_amount + v_price, fee_amount = fee_amount + v_fee,
                      total_amount = total_amount + v_price + v_fee, expires_at = v_expires, updated_at = p_now
    WHERE id = v_order_id;
  END IF;

  RETURN json_build_object('outcome', 'ok', 'order_id', v_order_id, 'session_id', v_seat.session_id,
                           'rows', order_rows_json(v_order_id));
END;
$$;

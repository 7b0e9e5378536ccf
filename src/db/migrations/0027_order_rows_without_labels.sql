-- History only: the functions this migration defines have their CURRENT body in one file each
-- under src/db/functions, re-applied after the migrations on every start (docs/architecture.md
-- "Migrations"). Here: order_rows_json, cart_hold_seat: src/db/functions/020_order_rows_json.sql,
-- 030_cart_hold_seat.sql.

-- The order view without catalogue joins (issue 3, bench:holds). order_view_json joined nine
-- catalogue tables for the names of every item; in a flash sale that was 40 % of a hold's database
-- work. order_rows_json returns only the order's own data (its columns, its voucher, its items'
-- ids and amounts), and Node adds the names from a per-session label cache
-- (src/modules/orders/orders.labels.ts; catalogue names change rarely, seat labels never).
CREATE FUNCTION order_rows_json(p_order_id bigint) RETURNS json
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
    SELECT json_build_object(
      'order_token', o.order_token, 'reference', o.reference, 'type', o.type, 'status', o.status,
      'currency', o.currency, 'base_amount', o.base_amount, 'discount_amount', o.discount_amount,
      'fee_amount', o.fee_amount, 'total_amount', o.total_amount, 'expires_at', o.expires_at,
      'vouchers', (SELECT json_agg(json_build_object('code', ov.code, 'kind', vo.kind, 'value', vo.value) ORDER BY ov.created_at)
                   FROM order_vouchers ov JOIN vouchers vo ON vo.id = ov.voucher_id WHERE ov.order_id = o.id),
      -- [id, event_id, session_id, sector_id, session_seat_id, rate_id, base, discount, fee, total]
      'items', (SELECT json_agg(json_build_array(i.id, i.event_id, i.session_id, i.sector_id, i.session_seat_id, i.rate_id,
                                                 i.base_amount, i.discount_amount, i.fee_amount, i.total_amount) ORDER BY i.id)
                FROM order_items i WHERE i.order_id = o.id))
    FROM orders o WHERE o.id = p_order_id);
END;
$$;

-- cart_hold_seat of 0025, answering with order_rows_json ("rows") instead of the joined view.
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
         (se.status = 'on_sale' AND e.status = 'published') AS on_sale
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

  -- Management fees of the event and the session (orders.pricing.ts feeFor: percent in basis points,
  -- rounded half away from zero).
  SELECT COALESCE(sum(CASE WHEN f.kind = 'fixed' THEN f.amount
                           ELSE sign(v_price) * round(abs(v_price)::numeric * f.amount / 10000) END), 0)::integer
  INTO v_fee
  FROM fees f WHERE f.event_id = v_seat.event_id OR f.session_id = v_seat.session_id;

  IF p_create THEN
    INSERT INTO orders (order_token, reference, channel_id, lang, currency, expires_at, created_at, updated_at)
    VALUES (p_order_token, p_reference, p_channel_id, p_lang, p_currency, p_new_expiry, p_now, p_now)
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
  UPDATE orders SET base_amount = base_amount + v_price, fee_amount = fee_amount + v_fee,
                    total_amount = total_amount + v_price + v_fee, expires_at = v_expires, updated_at = p_now
  WHERE id = v_order_id;

  RETURN json_build_object('outcome', 'ok', 'order_id', v_order_id, 'session_id', v_seat.session_id,
                           'rows', order_rows_json(v_order_id));
END;
$$;

DROP FUNCTION order_view_json(bigint, text);

-- History only: the functions this migration defines have their CURRENT body in one file each
-- under src/db/functions, re-applied after the migrations on every start (docs/architecture.md
-- "Migrations"). Here: cart_hold_seat: src/db/functions/030_cart_hold_seat.sql (order_view_json
-- was dropped by 0027).

-- Cart hold path in one round trip (issue 3, bench:holds). Two functions:
--   order_view_json(order, lang): the rows of the D35 order view as one JSON array (the order's
--     columns repeated on each item row; one row with NULL item columns for an empty cart). Used by
--     buildOrderView and by cart_hold_seat, so the view has one definition.
--   cart_hold_seat(...): create-order-with-seat or add-seat for the common case, in one statement.
-- cart_hold_seat decides only the plain cases and leaves everything else to the service's full
-- transaction: it returns outcome 'fallback' with nothing written when the seat or rate is unknown
-- or wrong, the session is not on sale, the order is missing, not live, has a voucher (the whole
-- order must be repriced) or is full, or the generated reference collided.

-- plpgsql rather than sql: PostgreSQL 15 plans a non-inlined SQL function's body on every call,
-- while plpgsql caches the plan per connection (measured: holds/s x1.8 on the flash-sale path).
CREATE FUNCTION order_view_json(p_order_id bigint, p_lang text) RETURNS json
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
  SELECT json_agg(v ORDER BY v.event_id, v.start_datetime, v.session_id, v.id)
  FROM (
    SELECT o.order_token, o.reference, o.type, o.status, o.currency, o.base_amount AS o_base, o.discount_amount AS o_discount,
           o.fee_amount AS o_fee, o.total_amount AS o_total, o.expires_at,
           (SELECT json_agg(json_build_object('code', ov.code, 'kind', vo.kind, 'value', vo.value) ORDER BY ov.created_at)
            FROM order_vouchers ov JOIN vouchers vo ON vo.id = ov.voucher_id WHERE ov.order_id = o.id) AS vouchers,
           oi.id, oi.event_id, COALESCE(et.name, etd.name) AS event_name, oi.session_id, se.start_datetime,
           oi.session_seat_id, ss.seat_id, oi.sector_id, sec.name AS sector_name, st.row, st.number,
           oi.rate_id, COALESCE(r.names ->> p_lang, r.name) AS rate_name,
           oi.base_amount, oi.discount_amount, oi.fee_amount, oi.total_amount
    FROM orders o
    LEFT JOIN order_items oi ON oi.order_id = o.id
    LEFT JOIN session_seats ss ON ss.id = oi.session_seat_id
    LEFT JOIN seats st ON st.id = ss.seat_id
    LEFT JOIN sectors sec ON sec.id = oi.sector_id
    LEFT JOIN rates r ON r.id = oi.rate_id
    LEFT JOIN sessions se ON se.id = oi.session_id
    LEFT JOIN events e ON e.id = oi.event_id
    LEFT JOIN event_translations et ON et.event_id = e.id AND et.lang = p_lang
    LEFT JOIN event_translations etd ON etd.event_id = e.id AND etd.lang = e.default_lang
    WHERE o.id = p_order_id
  ) v);
END;
$$;

-- p_order_token: the order to add to, or (p_create) the new order's token. p_new_expiry: a new cart
-- lifetime (D13), used for a new order or an empty cart. Returns
--   {"outcome": "ok", "order_id", "session_id", "view"}                        held and written;
--   {"outcome": "seat_unavailable", "session_seat_id", "sector_name", "row", "number"}  nothing written;
--   {"outcome": "fallback"}                                                     nothing written.
CREATE FUNCTION cart_hold_seat(
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
                           'view', order_view_json(v_order_id, p_lang));
END;
$$;

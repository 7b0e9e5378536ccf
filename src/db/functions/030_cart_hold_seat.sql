-- Cart hold path in one round trip (bench:holds): create-order-with-seat or add-seat for the common
-- case, in one statement, called by holdSeatInOneStatement (src/modules/orders/orders.repo.ts). It
-- decides only the plain cases and leaves everything else to the service's full transaction
-- (orders.service.ts addSeatsToCart): it returns outcome 'fallback' with nothing written when the
-- seat or rate is unknown or wrong, the seat is a zone place, the session is not on sale
-- (session_is_on_sale: D59 window, D74 state; the full path answers 409 not_on_sale), the order
-- is missing, not live, has a voucher (the whole order must be repriced) or is full, or the
-- generated reference collided. Both paths apply the same named rules (seat_is_free,
-- rate_fits_seat, the fee of ticket_fee / orders.pricing.ts); test/orders/hold-paths.property.test.ts
-- holds them to the same totals and refusals.
--
-- p_order_token: the order to add to, or (p_create) the new order's token. p_new_expiry: a new cart
-- lifetime (D13), used for a new order or an empty cart. p_buyer_key: the buyer of a new order (an
-- existing order's own buyer_key is used for an add). Returns
--   {"outcome": "ok", "order_id", "session_id", "rows"}                        held and written;
--   {"outcome": "seat_unavailable", "session_seat_id", "sector_name", "row", "number"}  nothing written;
--   {"outcome": "hold_limit_reached", "cap": "live_orders" | "session_tickets", "limit", "session_id"}  nothing written;
--   {"outcome": "fallback"}                                                     nothing written.
-- The items-per-order cap stays a 'fallback' (the full path answers it).
--
-- Hold caps (D44), race safety: the caps are counts over several rows (a buyer's orders and their
-- items), which no row lock or constraint covers. So the claims of one buyer are serialised by a
-- transaction-scoped advisory lock on a hash of the buyer key, taken inside the claim's own
-- transaction before counting. Seed 44 (D44) keeps its key space apart from other single-key users;
-- token issuance (auth.repo.ts lockTokenGroup) uses the two-key form. The lock is taken after the
-- order row lock, as in the full path (hold-caps.repo.ts), so the two paths cannot deadlock, and
-- only when a cap can bite: a claim that starts a cart, or any claim in a session with
-- max_tickets_per_buyer.
CREATE OR REPLACE FUNCTION cart_hold_seat(
  p_channel_id integer, p_order_token text, p_create boolean, p_reference text, p_lang text, p_currency text,
  p_new_expiry timestamptz, p_session_seat_id bigint, p_rate_id bigint, p_max_items integer, p_now timestamptz,
  p_buyer_key text, p_max_live_orders integer
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_order_id bigint;
  v_status text;
  v_expires timestamptz;
  v_buyer text;
  v_seat record;
  v_price integer;
  v_fee integer;
  v_claimed integer;
BEGIN
  -- The order first (locked), as the full path does, so that its item count is current.
  IF NOT p_create THEN
    SELECT id, status, expires_at, buyer_key INTO v_order_id, v_status, v_expires, v_buyer
    FROM orders WHERE order_token = p_order_token AND channel_id = p_channel_id FOR UPDATE;
    IF v_order_id IS NULL OR v_status <> 'pending' OR (v_expires IS NOT NULL AND v_expires <= p_now)
       OR EXISTS (SELECT 1 FROM order_vouchers WHERE order_id = v_order_id)
       OR (SELECT count(*) FROM order_items WHERE order_id = v_order_id) + 1 > p_max_items THEN
      RETURN json_build_object('outcome', 'fallback');
    END IF;
  ELSE
    v_buyer := p_buyer_key;
  END IF;

  -- The seat as the channel may sell it, and its rate.
  SELECT ss.id, ss.session_id, se.event_id, ss.sector_id, ss.seat_id, st.row, st.number, sec.name AS sector_name,
         session_is_on_sale(ss.session_id, p_now) AS on_sale, se.max_tickets_per_buyer
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
  WHERE id = p_rate_id AND rate_fits_seat(session_id, sector_id, v_seat.session_id, v_seat.sector_id);
  IF v_price IS NULL THEN
    RETURN json_build_object('outcome', 'fallback');
  END IF;

  -- Hold caps (D44), before anything is written. A new order and an emptied cart (no expiry) start
  -- a cart: the buyer's other live carts must number fewer than the cap.
  IF v_buyer IS NOT NULL AND (p_create OR v_expires IS NULL OR v_seat.max_tickets_per_buyer IS NOT NULL) THEN
    PERFORM pg_advisory_xact_lock(hashtextextended(v_buyer, 44));
    IF (p_create OR v_expires IS NULL)
       AND (SELECT count(*) FROM orders o
            WHERE o.buyer_key = v_buyer AND o.status = 'pending' AND o.expires_at > p_now) >= p_max_live_orders THEN
      RETURN json_build_object('outcome', 'hold_limit_reached', 'cap', 'live_orders', 'limit', p_max_live_orders,
                               'session_id', v_seat.session_id);
    END IF;
    IF v_seat.max_tickets_per_buyer IS NOT NULL
       AND (SELECT count(*) FROM order_items oi JOIN orders o ON o.id = oi.order_id
            WHERE o.buyer_key = v_buyer AND o.status = 'pending' AND o.expires_at > p_now
              AND oi.session_id = v_seat.session_id) + 1 > v_seat.max_tickets_per_buyer THEN
      RETURN json_build_object('outcome', 'hold_limit_reached', 'cap', 'session_tickets', 'limit', v_seat.max_tickets_per_buyer,
                               'session_id', v_seat.session_id);
    END IF;
  END IF;

  -- Management fees of the event and the session (ticket_fee; the full path's is orders.pricing.ts feeFor).
  v_fee := ticket_fee(v_price, v_seat.event_id, v_seat.session_id);

  IF p_create THEN
    INSERT INTO orders (order_token, reference, channel_id, lang, currency, expires_at, buyer_key, created_at, updated_at)
    VALUES (p_order_token, p_reference, p_channel_id, p_lang, p_currency, p_new_expiry, p_buyer_key, p_now, p_now)
    ON CONFLICT DO NOTHING
    RETURNING id, expires_at INTO v_order_id, v_expires;
    IF v_order_id IS NULL THEN
      RETURN json_build_object('outcome', 'fallback');
    END IF;
  END IF;
  v_expires := COALESCE(v_expires, p_new_expiry);

  -- The claim (D14): a conditional UPDATE whose row count decides; an expired hold is free (D15).
  UPDATE session_seats SET status = 'held', order_id = v_order_id, hold_expires_at = v_expires
  WHERE id = v_seat.id AND seat_is_free(status, hold_expires_at, p_now);
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

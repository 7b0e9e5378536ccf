-- The one hold of numbered seats for a cart (issue 26 "one home per cart rule", D63, D75), set-based:
-- create an order with its seats, add one seat, add seats in bulk all call it, in one statement
-- (so one transaction and one commit when the caller runs it on its own). orders.service.ts
-- (holdSeats) only maps its outcomes to the API's answers. It applies the named rules
-- (seat_is_free, rate_fits_seat, ticket_fee) and the hold caps (D44), all or nothing (D18).
--
-- Prices are fixed here (D75): each item's base_amount is its rate's price and its fee_amount the
-- fees of its event and session (ticket_fee) at hold time; nothing later reprices them (a voucher
-- only recomputes discounts from the held base, orders.service.ts repriceOrder).
--
-- p_order_token: the order to add to, or (p_create) the new order's token. p_new_expiry: a new cart
-- lifetime (D13), used for a new order or an empty cart. p_buyer_key: the buyer of a new order (an
-- existing order's own buyer_key is used for an add); for an add, the caller (D57, cart_open_to: an
-- order not open to it is 'order_not_found'). p_seat_ids / p_rate_ids: the requested seats
-- and their rates, pairwise, in request order. p_in_tx: the caller runs it inside its own
-- transaction (and reprices the voucher's discounts after); when false, an order that has a voucher
-- answers 'needs_transaction' with nothing written. Every outcome but 'ok' wrote nothing:
--   {"outcome": "ok", "order_id", "session_ids", "has_voucher", "rows"}
--   {"outcome": "order_not_found"} | {"outcome": "order_state", "status": "completed"|"cancelled"|"expired"}
--   {"outcome": "duplicate", "index"}                       (0-based request index)
--   {"outcome": "seat_not_found", "session_seat_id"}        the first unknown one in request order
--   {"outcome": "invalid", "errors": [{"index", "field": "zone"|"rate", "session_id"}]}
--   {"outcome": "not_on_sale", "session_id"}
--   {"outcome": "hold_limit_reached", "cap": "items_per_order"|"live_orders"|"session_tickets", "limit", "session_id"}
--   {"outcome": "seat_unavailable", "session_seat_id", "sector_name", "row", "number"}  the lowest id taken
--   {"outcome": "needs_transaction"} | {"outcome": "retry"} (the new order's reference collided)
--
-- Race safety (D14): the seats are locked in ascending id order (so two claims over the same seats
-- cannot deadlock), checked free under the lock, then claimed by one conditional UPDATE whose row
-- count must be the request's. Hold caps: the claims of one buyer are serialised by a
-- transaction-scoped advisory lock on a hash of the buyer key (seed 44, the same lock as
-- hold-caps.repo.ts lockBuyer; keyspaces in src/db/advisory-locks.ts), waited for at most 10 s
-- (LOCK_WAIT_MS there), taken after the order row lock and before the seats, and only when a cap
-- can bite (a claim that starts a cart, or a session with max_tickets_per_buyer).
CREATE OR REPLACE FUNCTION cart_hold_seats(
  p_channel_id integer, p_order_token text, p_create boolean, p_reference text, p_lang text, p_currency text,
  p_new_expiry timestamptz, p_seat_ids bigint[], p_rate_ids bigint[], p_max_items integer, p_now timestamptz,
  p_buyer_key text, p_max_live_orders integer, p_in_tx boolean
) RETURNS json
-- Generic plans, always: the statements take the requested seats as arrays, and PostgreSQL's
-- choice between a custom and a generic plan judges a custom plan (which sees the array's length)
-- cheaper every time, so it planned every statement again on every call: 2.7 M of the 12 M
-- instructions of a purchase (bench:flash's purchase replayed under callgrind, docs/operations.md).
-- The generic plans reach the seats, the order and the rates by key; no statement here has a
-- value whose frequency should change its plan.
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_order_id bigint;
  v_status text;
  v_expires timestamptz;
  v_buyer text;
  v_count integer := 0;
  v_has_voucher boolean := false;
  v_n integer := COALESCE(cardinality(p_seat_ids), 0);
  v_req record;
  v_cap record;
  v_errors jsonb := '[]';
  v_closed integer;
  v_capped boolean := false;
  v_events integer[] := '{}';
  v_sectors integer[] := '{}';
  v_prices integer[] := '{}';
  v_caps integer[] := '{}';
  v_other integer;
  v_taken record;
  v_lock record;
  v_taken_id bigint;
  v_claimed integer;
  v_sessions integer[] := '{}';
  v_fees integer[] := '{}';
  v_base integer := 0;
  v_fee integer := 0;
  v_on_sale_of integer;
  v_type text;
  v_items json;
  v_session_set integer[] := '{}';
  v_seen bigint[] := '{}';
  v_dup bigint;
  v_missing bigint;
  v_missing_at bigint;
BEGIN
  -- The order first (locked), so that its item count and voucher are current.
  IF NOT p_create THEN
    SELECT id, status, expires_at, buyer_key INTO v_order_id, v_status, v_expires, v_buyer
    -- For an add, p_buyer_key is the caller (D57): an order not open to it is not found (404, D5).
    FROM orders WHERE order_token = p_order_token AND channel_id = p_channel_id AND cart_open_to(buyer_key, p_buyer_key)
    FOR UPDATE;
    IF v_order_id IS NULL THEN
      RETURN json_build_object('outcome', 'order_not_found');
    END IF;
    IF v_status IN ('completed', 'cancelled') THEN
      RETURN json_build_object('outcome', 'order_state', 'status', v_status);
    END IF;
    IF v_status = 'expired' OR (v_expires IS NOT NULL AND v_expires <= p_now) THEN
      RETURN json_build_object('outcome', 'order_state', 'status', 'expired');
    END IF;
    v_has_voucher := EXISTS (SELECT 1 FROM order_vouchers WHERE order_id = v_order_id);
    -- A voucher to reprice, or a card payment attempt open (D73: the full path answers 409
    -- payment_in_progress): the full path in a transaction decides.
    IF NOT p_in_tx AND (v_has_voucher OR EXISTS (SELECT 1 FROM payments WHERE order_id = v_order_id AND status = 'pending')) THEN
      RETURN json_build_object('outcome', 'needs_transaction');
    END IF;
    v_count := (SELECT count(*) FROM order_items WHERE order_id = v_order_id);
  ELSE
    v_buyer := p_buyer_key;
  END IF;

  -- The requested seats as the channel may sell them, with their rates, read once in request
  -- order into arrays (the claim and the items below are set-based over them).
  -- Each seat and rate is looked up by its key in a LATERAL subquery that LIMIT keeps from being
  -- flattened into a join: as a plain join, the generic plan made with statistics from when the
  -- sessions had few seats (a catalogue just imported) joined the requested seats by hash to
  -- every seat of the channel's sessions, a walk of the whole session on every hold (bench:holds,
  -- auto_explain; test/orders/hold-plan.test.ts).
  -- The same pass finds a seat asked for twice (the first repeat in request order: outcome
  -- duplicate, which comes before every other refusal) and the first unknown seat, answered after
  -- it; a statement of its own for the repeat cost 0.06 M of a purchase's instructions under
  -- callgrind (docs/operations.md).
  FOR v_req IN
    SELECT r.n, r.seat, r.rate, s.id IS NOT NULL AS found, s.session_id, s.event_id, s.sector_id,
           s.seat_id IS NOT NULL AS numbered, s.max_tickets, ra.price,
           (ra.id IS NOT NULL AND rate_fits_seat(ra.session_id, ra.sector_id, s.session_id, s.sector_id)) AS fits
    FROM unnest(p_seat_ids, p_rate_ids) WITH ORDINALITY AS r(seat, rate, n)
    LEFT JOIN LATERAL (
      SELECT ss.id, ss.session_id, se.event_id, ss.sector_id, ss.seat_id, se.max_tickets_per_buyer AS max_tickets
      FROM session_seats ss
      JOIN sessions se ON se.id = ss.session_id
      JOIN channel_events ce ON ce.event_id = se.event_id AND ce.channel_id = p_channel_id
      WHERE ss.id = r.seat LIMIT 1) s ON true
    LEFT JOIN LATERAL (SELECT ra.id, ra.price, ra.session_id, ra.sector_id FROM rates ra WHERE ra.id = r.rate LIMIT 1) ra ON true
    ORDER BY r.n
  LOOP
    -- array_position compares as IS NOT DISTINCT FROM: two NULL seats are a repeat too.
    IF v_dup IS NULL AND array_position(v_seen, v_req.seat) IS NOT NULL THEN
      v_dup := v_req.n - 1;
    END IF;
    v_seen := v_seen || v_req.seat;
    IF NOT v_req.found THEN
      IF v_missing_at IS NULL THEN
        v_missing_at := v_req.n;
        v_missing := v_req.seat;
      END IF;
      CONTINUE;
    END IF;
    IF NOT v_req.numbered THEN
      v_errors := v_errors || jsonb_build_object('index', v_req.n - 1, 'field', 'zone', 'session_id', v_req.session_id);
    END IF;
    IF NOT v_req.fits THEN
      v_errors := v_errors || jsonb_build_object('index', v_req.n - 1, 'field', 'rate', 'session_id', v_req.session_id);
    END IF;
    -- Whether the session is on sale, asked once for a run of seats of the same session (the
    -- seats of a cart are usually of one session).
    IF v_closed IS NULL AND v_req.session_id IS DISTINCT FROM v_on_sale_of THEN
      IF NOT session_is_on_sale(v_req.session_id, p_now) THEN
        v_closed := v_req.session_id;
      END IF;
      v_on_sale_of := v_req.session_id;
    END IF;
    v_sessions := v_sessions || v_req.session_id;
    IF NOT v_req.session_id = ANY(v_session_set) THEN
      v_session_set := v_session_set || v_req.session_id;
    END IF;
    v_events := v_events || v_req.event_id;
    v_sectors := v_sectors || v_req.sector_id;
    v_prices := v_prices || v_req.price;
    v_caps := v_caps || v_req.max_tickets;
    v_capped := v_capped OR v_req.max_tickets IS NOT NULL;
  END LOOP;
  IF v_dup IS NOT NULL THEN
    RETURN json_build_object('outcome', 'duplicate', 'index', v_dup);
  END IF;
  IF v_missing_at IS NOT NULL THEN
    RETURN json_build_object('outcome', 'seat_not_found', 'session_seat_id', v_missing);
  END IF;
  IF jsonb_array_length(v_errors) > 0 THEN
    RETURN json_build_object('outcome', 'invalid', 'errors', v_errors);
  END IF;
  IF v_closed IS NOT NULL THEN
    RETURN json_build_object('outcome', 'not_on_sale', 'session_id', v_closed);
  END IF;

  -- Hold caps (D44), before anything is written.
  IF v_count + v_n > p_max_items THEN
    RETURN json_build_object('outcome', 'hold_limit_reached', 'cap', 'items_per_order', 'limit', p_max_items);
  END IF;
  IF v_buyer IS NOT NULL AND (v_count = 0 OR v_capped) THEN
    PERFORM advisory_xact_lock_within(hashtextextended(v_buyer, 44), false, 10000);
    -- A claim into an empty cart starts one: the buyer's other live carts must be fewer than the cap.
    IF v_count = 0 AND (SELECT count(*) FROM orders o
                        WHERE o.buyer_key = v_buyer AND o.status = 'pending' AND o.expires_at > p_now
                          AND o.id IS DISTINCT FROM v_order_id) >= p_max_live_orders THEN
      RETURN json_build_object('outcome', 'hold_limit_reached', 'cap', 'live_orders', 'limit', p_max_live_orders);
    END IF;
    IF v_capped THEN
      SELECT q.session_id, q.cap INTO v_cap FROM (
        SELECT h.session_id, min(h.cap) AS cap, count(*) AS adding
        FROM unnest(v_sessions, v_caps) AS h(session_id, cap) WHERE h.cap IS NOT NULL GROUP BY h.session_id) q
      WHERE q.adding + (SELECT count(*) FROM order_items oi JOIN orders o ON o.id = oi.order_id
                        WHERE o.buyer_key = v_buyer AND o.status = 'pending' AND o.expires_at > p_now
                          AND oi.session_id = q.session_id) > q.cap
      ORDER BY q.session_id LIMIT 1;
      IF v_cap.session_id IS NOT NULL THEN
        RETURN json_build_object('outcome', 'hold_limit_reached', 'cap', 'session_tickets', 'limit', v_cap.cap,
                                 'session_id', v_cap.session_id);
      END IF;
    END IF;
  END IF;

  -- Each item's fee (D75), and the amounts the items add to the order. The fee depends only on the
  -- price, the event and the session: asked again only when one of them changes.
  FOR i IN 1 .. v_n LOOP
    IF i = 1 OR v_prices[i] IS DISTINCT FROM v_prices[i - 1] OR v_events[i] IS DISTINCT FROM v_events[i - 1]
       OR v_sessions[i] IS DISTINCT FROM v_sessions[i - 1] THEN
      v_fees[i] := ticket_fee(v_prices[i], v_events[i], v_sessions[i]);
    ELSE
      v_fees[i] := v_fees[i - 1];
    END IF;
    v_base := v_base + v_prices[i];
    v_fee := v_fee + v_fees[i];
  END LOOP;

  IF p_create THEN
    -- A new order is written with its totals: no update of it after the items.
    INSERT INTO orders (order_token, reference, channel_id, lang, currency, expires_at, buyer_key,
                        base_amount, discount_amount, fee_amount, total_amount, created_at, updated_at)
    VALUES (p_order_token, p_reference, p_channel_id, p_lang, p_currency, p_new_expiry, p_buyer_key,
            v_base, 0, v_fee, v_base + v_fee, p_now, p_now)
    ON CONFLICT DO NOTHING
    RETURNING id, expires_at, type, status INTO v_order_id, v_expires, v_type, v_status;
    IF v_order_id IS NULL THEN
      RETURN json_build_object('outcome', 'retry');
    END IF;
  END IF;
  v_expires := COALESCE(v_expires, p_new_expiry);

  -- The claim (D14): lock the rows in id order and check each free (D15: an expired hold is
  -- free) as it is locked, then one conditional UPDATE whose row count must be the request's.
  -- FOR UPDATE returns each row as it is once locked (the newest version, after waiting for a
  -- concurrent writer), so the check sees what the claim will change. The lock's only condition is
  -- the primary key: a check written as a filter on status could be planned over the partial index
  -- of taken seats and walk every sold seat of the session (stale statistics after an on-sale
  -- starts), and a filter under a locking subquery may be pushed below its lock.
  v_claimed := 0;
  FOR v_lock IN SELECT ss.id, ss.status, ss.hold_expires_at FROM session_seats ss WHERE ss.id = ANY(p_seat_ids) ORDER BY ss.id FOR UPDATE LOOP
    v_claimed := v_claimed + 1;
    IF v_taken_id IS NULL AND NOT seat_is_free(v_lock.status, v_lock.hold_expires_at, p_now) THEN
      v_taken_id := v_lock.id;
    END IF;
  END LOOP;
  -- A seat deleted while this waited for its lock (a new layout version dropped it and committed
  -- first): not found, as if the version had come before this request.
  IF v_claimed <> v_n THEN
    SELECT r.seat INTO v_other FROM unnest(p_seat_ids) WITH ORDINALITY AS r(seat, n)
    WHERE NOT EXISTS (SELECT 1 FROM session_seats ss WHERE ss.id = r.seat) ORDER BY r.n LIMIT 1;
    IF p_create THEN
      DELETE FROM orders WHERE id = v_order_id;
    END IF;
    RETURN json_build_object('outcome', 'seat_not_found', 'session_seat_id', v_other);
  END IF;
  IF v_taken_id IS NOT NULL THEN
    SELECT sec.name AS sector_name, st.row, st.number INTO v_taken
    FROM session_seats ss
    JOIN sectors sec ON sec.id = ss.sector_id
    LEFT JOIN seats st ON st.id = ss.seat_id
    WHERE ss.id = v_taken_id;
    IF p_create THEN
      DELETE FROM orders WHERE id = v_order_id;
    END IF;
    RETURN json_build_object('outcome', 'seat_unavailable', 'session_seat_id', v_taken_id,
                             'sector_name', v_taken.sector_name, 'row', v_taken.row, 'number', v_taken.number);
  END IF;
  UPDATE session_seats SET status = 'held', order_id = v_order_id, hold_expires_at = v_expires
  WHERE id = ANY(p_seat_ids) AND seat_is_free(status, hold_expires_at, p_now);
  GET DIAGNOSTICS v_claimed = ROW_COUNT;
  IF v_claimed <> v_n THEN
    RAISE EXCEPTION 'cart_hold_seats: claimed % of % locked seats', v_claimed, v_n;
  END IF;

  -- The items at their held amounts (D75), and (for a new order, whose rows are these) their rows;
  -- an existing order's totals grow by what they add.
  WITH items AS (
    INSERT INTO order_items (order_id, event_id, session_id, sector_id, session_seat_id, rate_id,
                             base_amount, discount_amount, fee_amount, total_amount, created_at)
    SELECT v_order_id, h.event_id, h.session_id, h.sector_id, h.seat_id, h.rate_id, h.price, 0, h.fee, h.price + h.fee, p_now
    FROM unnest(p_seat_ids, p_rate_ids, v_sessions, v_events, v_sectors, v_prices, v_fees)
         AS h(seat_id, rate_id, session_id, event_id, sector_id, price, fee)
    ORDER BY h.seat_id
    RETURNING id, event_id, session_id, sector_id, session_seat_id, rate_id, base_amount, discount_amount, fee_amount, total_amount)
  SELECT json_agg(order_item_row(i.id, i.event_id, i.session_id, i.sector_id, i.session_seat_id, i.rate_id,
                                 i.base_amount, i.discount_amount, i.fee_amount, i.total_amount) ORDER BY i.id)
  INTO v_items FROM items i;
  IF NOT p_create THEN
    UPDATE orders SET base_amount = base_amount + v_base, fee_amount = fee_amount + v_fee,
                      total_amount = total_amount + v_base + v_fee, expires_at = v_expires, updated_at = p_now
    WHERE id = v_order_id;
  END IF;

  RETURN json_build_object('outcome', 'ok', 'order_id', v_order_id,
                           'session_ids', v_session_set, 'has_voucher', v_has_voucher,
                           -- A new order's rows are what this wrote (order_rows_build: the shape
                           -- order_rows_json reads); an existing order's are read.
                           'rows', CASE WHEN v_has_voucher THEN NULL
                                        WHEN p_create THEN order_rows_build(p_order_token, p_reference, v_type, v_status, p_currency,
                                                                            v_base, 0, v_fee, v_base + v_fee, v_expires, NULL, v_items)
                                        ELSE order_rows_json(v_order_id) END);
END;
$$;

-- The closing process (D21) in one statement, its own transaction (bench:confirm): lock the order,
-- check it, sell its seats (all or nothing), complete it (complete_order) and return the view rows.
-- closeOrderInDatabase (src/modules/checkout/checkout.repo.ts) calls it and closing.service.ts maps
-- its outcomes to the API's answers.
--
-- The order is named by p_order_id, or by p_order_token within p_channel_id (confirm: another
-- channel's order is not found, D5). p_codes: fresh ticket codes, at least one per item (Node makes
-- them; too few gives outcome need_codes with the count, nothing written). p_with_rows: also return
-- the order's rows for its view (order_rows_json). p_email_modes: the integration modes whose
-- channels get the ticket e-mail (TICKET_EMAIL_MODES). Outcomes:
--   closed            {order_id, codes, session_ids, rows}   seats sold, tickets issued, completed
--   already_completed {order_id, codes, rows}                nothing ran again (D22)
--   not_found | cancelled | empty | expired                   nothing written
--   voucher_withdrawn {order_id}                              nothing written (confirm by token only, D75)
--   not_on_sale       {session_id}                            nothing written (D74: a session of the
--                                                             order is not on sale, session_is_on_sale)
--   amount_mismatch   {total_amount}                          nothing written
--   seat_unavailable                                          nothing written
--   need_codes        {count}                                 nothing written
-- Concurrent calls for one order queue on its row lock; exactly one closes (confirm-race.test.ts).
--
-- Generic plans, always (migration 0346): every statement reaches its rows by key (the order, its
-- items, their seats), so no value should change a plan; left to PostgreSQL's custom-or-generic
-- choice, the first five calls of each connection planned every statement, and, depending on the
-- statistics' sample, a statement was planned again on every call (one sample cost 0.7 M
-- instructions per purchase under callgrind; the bench database of docs/operations.md 0.05 M).
CREATE OR REPLACE FUNCTION close_order(
  p_order_id bigint, p_order_token text, p_channel_id integer, p_now timestamptz, p_allow_expired boolean,
  p_expected_amount integer, p_name text, p_surname text, p_email text, p_phone text,
  p_payment_method text, p_transaction_id text, p_codes text[], p_with_rows boolean, p_email_modes text[]
) RETURNS json
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_order record;
  v_items bigint[];
  v_sessions integer[];
  v_seats integer[];
  v_count integer;
  v_expired boolean;
  v_closed integer;
  v_item_rows json;
BEGIN
  IF p_order_id IS NOT NULL THEN
    SELECT o.id, c.integration_mode, o.type, o.status, o.expires_at, o.total_amount,
           o.order_token, o.reference, o.currency, o.base_amount, o.discount_amount, o.fee_amount,
           EXISTS (SELECT 1 FROM order_vouchers ov WHERE ov.order_id = o.id) AS has_voucher INTO v_order
    FROM orders o JOIN sales_channels c ON c.id = o.channel_id WHERE o.id = p_order_id FOR UPDATE OF o;
  ELSE
    SELECT o.id, c.integration_mode, o.type, o.status, o.expires_at, o.total_amount,
           o.order_token, o.reference, o.currency, o.base_amount, o.discount_amount, o.fee_amount,
           EXISTS (SELECT 1 FROM order_vouchers ov WHERE ov.order_id = o.id) AS has_voucher INTO v_order
    FROM orders o JOIN sales_channels c ON c.id = o.channel_id
    WHERE o.order_token = p_order_token AND o.channel_id = p_channel_id FOR UPDATE OF o;
  END IF;
  IF v_order.id IS NULL OR v_order.type = 'refund' THEN
    RETURN json_build_object('outcome', 'not_found');
  END IF;
  IF v_order.status = 'completed' THEN
    RETURN json_build_object('outcome', 'already_completed', 'order_id', v_order.id,
      'codes', (SELECT COALESCE(array_agg(t.code ORDER BY t.order_item_id), '{}') FROM tickets t WHERE t.order_id = v_order.id),
      'rows', CASE WHEN p_with_rows THEN order_rows_json(v_order.id) END);
  END IF;
  IF v_order.status = 'cancelled' THEN
    -- D74: a cart that a session's cancellation ended (or whose session is otherwise no longer on
    -- sale) answers not_on_sale, as it would have had the confirm come first.
    SELECT i.session_id INTO v_closed FROM order_items i
    WHERE i.order_id = v_order.id AND NOT session_is_on_sale(i.session_id, p_now) LIMIT 1;
    IF v_closed IS NOT NULL THEN
      RETURN json_build_object('outcome', 'not_on_sale', 'session_id', v_closed);
    END IF;
    RETURN json_build_object('outcome', 'cancelled');
  END IF;

  -- The items, read under the order's lock (an order's items change only under it), and, for the
  -- answer's rows, as order_rows_json would read them after the closing: the closing changes no
  -- item.
  SELECT array_agg(i.id ORDER BY i.id), array_agg(i.session_id ORDER BY i.id),
         json_agg(order_item_row(i.id, i.event_id, i.session_id, i.sector_id, i.session_seat_id, i.rate_id,
                                 i.base_amount, i.discount_amount, i.fee_amount, i.total_amount) ORDER BY i.id)
           FILTER (WHERE p_with_rows)
  INTO v_items, v_sessions, v_item_rows
  FROM order_items i WHERE i.order_id = v_order.id;
  v_count := COALESCE(cardinality(v_items), 0);
  IF v_count = 0 THEN
    RETURN json_build_object('outcome', 'empty');
  END IF;
  -- D74: only what is on sale is sold, checked under the order's lock. The sessions' sale locks
  -- are taken shared first (lock_session_sale): a cancellation (which takes them exclusive to
  -- update the session row, then ends the carts in a later transaction) either commits before
  -- this check, which then sees it, or waits for this closing to commit; no ticket is issued after
  -- a cancellation has committed.
  -- Every item of one session (most orders): its lock and its check straight, without the
  -- queries over the array (0.05 M of the closing's instructions under callgrind).
  IF v_sessions[1] = ALL (v_sessions) THEN
    PERFORM pg_advisory_xact_lock_shared(session_sale_key(v_sessions[1]));
    IF NOT session_is_on_sale(v_sessions[1], p_now) THEN
      v_closed := v_sessions[1];
    END IF;
  ELSE
    PERFORM lock_session_sale(v_sessions, false);
    SELECT s INTO v_closed FROM unnest(v_sessions) AS s WHERE NOT session_is_on_sale(s, p_now) LIMIT 1;
  END IF;
  IF v_closed IS NOT NULL THEN
    RETURN json_build_object('outcome', 'not_on_sale', 'session_id', v_closed);
  END IF;
  v_expired := v_order.status = 'expired' OR (v_order.expires_at IS NOT NULL AND v_order.expires_at <= p_now);
  IF v_expired AND NOT p_allow_expired THEN
    RETURN json_build_object('outcome', 'expired');
  END IF;
  -- D75: a confirm (named by token: a cart that has not started a card payment) whose voucher the
  -- organiser withdrew does not close; the caller removes the voucher and answers with the new total.
  -- has_voucher, read with the order, spares most confirms (no voucher) the check's call and query
  -- (78 k of the closing's instructions under callgrind, docs/operations.md).
  IF p_order_id IS NULL AND v_order.has_voucher AND voucher_withdrawn(v_order.id, p_now) THEN
    RETURN json_build_object('outcome', 'voucher_withdrawn', 'order_id', v_order.id);
  END IF;
  IF p_expected_amount IS NOT NULL AND p_expected_amount <> v_order.total_amount THEN
    RETURN json_build_object('outcome', 'amount_mismatch', 'total_amount', v_order.total_amount);
  END IF;
  IF COALESCE(cardinality(p_codes), 0) < v_count THEN
    RETURN json_build_object('outcome', 'need_codes', 'count', v_count);
  END IF;

  -- The order's inventory rows it may sell, locked in id order (D14): its own holds, and, for an
  -- expired cart whose payment was taken (p_allow_expired), rows that are free again (D15).
  -- All of them or nothing: the rows are only written once every item's row is in hand.
  SELECT array_agg(u.id ORDER BY u.id) INTO v_seats FROM (
    SELECT ss.id FROM session_seats ss JOIN order_items i ON i.session_seat_id = ss.id
    WHERE i.order_id = v_order.id
      AND ((ss.status = 'held' AND ss.order_id = v_order.id)
           OR (v_expired AND seat_is_free(ss.status, ss.hold_expires_at, p_now)))
    ORDER BY ss.id FOR UPDATE OF ss) u;
  IF COALESCE(cardinality(v_seats), 0) <> v_count THEN
    RETURN json_build_object('outcome', 'seat_unavailable');
  END IF;
  -- The rows just locked, reached again through the items: `WHERE id = ANY(v_seats)` was planned
  -- anew on every call (a custom plan for the array's one element always looked cheaper than the
  -- generic one), a planning per closing under callgrind.
  UPDATE session_seats ss SET status = 'sold', order_id = v_order.id, hold_expires_at = NULL
  FROM order_items i WHERE i.order_id = v_order.id AND ss.id = i.session_seat_id;

  PERFORM complete_order(v_order.id, v_items, p_codes[1:v_count], v_order.integration_mode = ANY(p_email_modes),
                         p_name, p_surname, p_email, p_phone, p_payment_method, p_transaction_id, p_now);
  -- The closed order's rows built from what this read and wrote (order_rows_build: the shape
  -- order_rows_json reads; complete_order changes the status and clears expires_at, not the
  -- amounts): reading them back cost 0.22 M of a purchase's instructions under callgrind
  -- (docs/operations.md). An order with a voucher has its vouchers read.
  RETURN json_build_object('outcome', 'closed', 'order_id', v_order.id, 'codes', p_codes[1:v_count],
    'session_ids', v_sessions,
    'rows', CASE WHEN NOT p_with_rows THEN NULL
                 WHEN v_order.has_voucher THEN order_rows_json(v_order.id)
                 ELSE order_rows_build(v_order.order_token, v_order.reference, v_order.type, 'completed', v_order.currency,
                                       v_order.base_amount, v_order.discount_amount, v_order.fee_amount, v_order.total_amount,
                                       NULL, NULL, v_item_rows) END);
END;
$$;

-- The writes that complete a sold order: the buyer record, one ticket per item, the order
-- `completed`, and the ticket e-mail queued for processEmailQueue when p_send_email (the integration
-- policy's answer, src/lib/integration-policy.ts `sendsTicketEmail`). Called by close_order and,
-- through completeOrderInDatabase (src/modules/checkout/checkout.repo.ts), by reservations.
--
-- The one place an order becomes completed, so the one place it starts counting in the kept sales
-- figures (D66): the same update marks it `figures_pending` (migration 0342) and the readers count
-- it at once through sales_figures_current; sales_figures_apply_pending adds it to the kept rows
-- later, with other marked orders in one statement. The two upserts it replaces were a tenth of
-- the closing's instructions under callgrind (docs/operations.md). The order is not completed
-- before: its items get their tickets here, one per item (tickets_order_item_id_key).
CREATE OR REPLACE FUNCTION complete_order(
  p_order_id bigint, p_item_ids bigint[], p_codes text[], p_send_email boolean,
  p_name text, p_surname text, p_email text, p_phone text,
  p_payment_method text, p_transaction_id text, p_at timestamptz
) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_customer integer;
BEGIN
  INSERT INTO customers (name, surname, email, phone) VALUES (p_name, p_surname, p_email, p_phone)
  RETURNING id INTO v_customer;
  -- The tickets with what tickets_mark_change would give them (the transaction, the active signing
  -- key), so that its insert trigger's WHEN spares the call (migration 0353).
  INSERT INTO tickets (code, order_id, order_item_id, issued_at, change_xid, signing_kid)
  SELECT x.code, p_order_id, x.item_id, p_at, txid_current(), (SELECT kid FROM ticket_signing_keys WHERE retired_at IS NULL)
  FROM unnest(p_item_ids, p_codes) AS x(item_id, code);
  UPDATE orders SET status = 'completed', customer_id = v_customer, payment_method = p_payment_method,
                    transaction_id = p_transaction_id, completed_at = p_at, updated_at = p_at, expires_at = NULL,
                    figures_pending = type IN ('purchase', 'reservation')
  WHERE id = p_order_id;
  IF p_send_email THEN
    INSERT INTO email_outbox (kind, order_id, recipient, next_attempt_at, created_at)
    VALUES ('tickets', p_order_id, p_email, p_at, p_at)
    ON CONFLICT (order_id, kind) WHERE payment_id IS NULL DO NOTHING;
  END IF;
END;
$$;

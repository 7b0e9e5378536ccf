-- Issue 27: an order's outcome writes its report rows and its outbox event from one deferred
-- trigger function (order_outcome, src/db/functions/091_order_outcome.sql) instead of two
-- (order_events_write and webhook_order_event), each with its own triggers: a closing queued, read
-- the WHEN of and called two deferred triggers at its commit; now one (-0.044 M instructions per
-- two-seat purchase under callgrind, docs/operations.md). What fires is the same: every status but
-- pending, on insert (a refund) and on a change of status; order_outcome writes the report rows for
-- completed and cancelled only, as order_events_on_* did.
--
-- The function's body is created here too, not only by the functions step that follows the
-- migrations (in a transaction of its own): between the two, an instance of the previous version
-- may complete an order, and the new triggers must already write everything.
CREATE OR REPLACE FUNCTION order_outcome() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status <> 'expired' THEN
    INSERT INTO order_events (channel_id, event_id, created_at, order_id)
    SELECT DISTINCT NEW.channel_id, i.event_id, NEW.created_at, NEW.id
    FROM order_items i
    WHERE i.order_id = COALESCE(NEW.refunded_order_id, NEW.id)
    ON CONFLICT DO NOTHING;
  END IF;
  IF NEW.type = 'refund' THEN
    IF NEW.refunded_order_id IS NOT NULL THEN
      PERFORM webhook_enqueue(NEW.channel_id, 'order.refunded', NEW.updated_at, NULL, NEW.refunded_order_id, NEW.lang,
        json_build_object('refund', json_build_object(
          'reference', NEW.reference, 'total_amount', NEW.total_amount, 'fee_amount', NEW.fee_amount,
          -- The refunded tickets (D58): a refund may cover some of the order's tickets only.
          'tickets', COALESCE((
            SELECT json_agg(json_build_object('ticket_id', ri.ticket_id, 'item_id', ri.order_item_id,
                                              'session_seat_id', i.session_seat_id, 'total_amount', ri.total_amount)
                            ORDER BY ri.order_item_id)
            FROM refund_items ri JOIN order_items i ON i.id = ri.order_item_id
            WHERE ri.refund_order_id = NEW.id), '[]'::json))));
    END IF;
  ELSE
    PERFORM webhook_enqueue(NEW.channel_id, 'order.' || NEW.status, NEW.updated_at, NULL, NEW.id, NEW.lang, NULL);
  END IF;
  RETURN NULL;
END;
$$;
DROP TRIGGER order_events_on_insert ON orders;
DROP TRIGGER order_events_on_status ON orders;
DROP TRIGGER webhook_order_on_insert ON orders;
DROP TRIGGER webhook_order_on_status ON orders;
CREATE CONSTRAINT TRIGGER order_outcome_on_insert AFTER INSERT ON orders DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.status <> 'pending') EXECUTE FUNCTION order_outcome();
CREATE CONSTRAINT TRIGGER order_outcome_on_status AFTER UPDATE OF status ON orders DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.status <> 'pending' AND OLD.status <> NEW.status) EXECUTE FUNCTION order_outcome();
DROP FUNCTION order_events_write();
DROP FUNCTION webhook_order_event();

-- The order events of the outbox (D51), run by the deferred triggers webhook_order_on_status and
-- webhook_order_on_insert (migration 0090) at the commit of the transaction that completed,
-- cancelled or expired an order or inserted a refund: every path that changes an order's outcome
-- writes its event without having to remember to. The event's time is the order's updated_at,
-- which the application sets from its clock. A refund reports the order it refunds (its view, as
-- the buyer knows it) with the refund's reference, amounts and the tickets it covered.
CREATE OR REPLACE FUNCTION webhook_order_event() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.type = 'refund' THEN
    IF NEW.refunded_order_id IS NOT NULL THEN
      -- The refunded tickets (D58): a refund may cover some of the order's tickets only.
      PERFORM webhook_enqueue(NEW.channel_id, 'order.refunded', NEW.updated_at, NULL, NEW.refunded_order_id, NEW.lang,
        json_build_object('refund', json_build_object(
          'reference', NEW.reference, 'total_amount', NEW.total_amount, 'fee_amount', NEW.fee_amount,
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

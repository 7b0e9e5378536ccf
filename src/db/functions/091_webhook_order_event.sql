-- The order events of the outbox (D51), run by the deferred triggers webhook_order_on_status and
-- webhook_order_on_insert (migration 0090) at the commit of the transaction that completed,
-- cancelled or expired an order or inserted a refund: every path that changes an order's outcome
-- writes its event without having to remember to. The event's time is the order's updated_at,
-- which the application sets from its clock. A refund reports the order it refunds (its view, as
-- the buyer knows it) with the refund's reference and amount.
CREATE OR REPLACE FUNCTION webhook_order_event() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.type = 'refund' THEN
    IF NEW.refunded_order_id IS NOT NULL THEN
      PERFORM webhook_enqueue(NEW.channel_id, 'order.refunded', NEW.updated_at, NULL, NEW.refunded_order_id, NEW.lang,
        json_build_object('refund', json_build_object('reference', NEW.reference, 'total_amount', NEW.total_amount)));
    END IF;
  ELSE
    PERFORM webhook_enqueue(NEW.channel_id, 'order.' || NEW.status, NEW.updated_at, NULL, NEW.id, NEW.lang, NULL);
  END IF;
  RETURN NULL;
END;
$$;

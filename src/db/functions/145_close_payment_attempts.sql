-- D73: a card payment attempt ends with its cart. Run by the trigger orders_close_payment_attempts
-- when the status of an order that had an attempt (payment_attempted, migration 0343) is updated,
-- and acting when the order leaves `pending`: cancelled (DELETE, the widget's re-init),
-- expired (the sweep) or completed by anything but this very attempt (another tab, a confirm).
-- The open attempt is closed in the same transaction (the sandbox page stops taking cards at
-- once; a payment that arrives later is refunded); provider_closed_at stays NULL until the
-- scheduler has closed the provider's session too (payments.attempts.ts).
CREATE OR REPLACE FUNCTION close_payment_attempts() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status <> 'pending' OR NEW.status = 'pending' THEN
    RETURN NULL;
  END IF;
  UPDATE payments
     SET status = 'cancelled', failure_reason = 'order_' || NEW.status, closed_at = NEW.updated_at, updated_at = NEW.updated_at
   WHERE order_id = NEW.id AND status = 'pending' AND id IS DISTINCT FROM NEW.transaction_id;
  RETURN NULL;
END;
$$;

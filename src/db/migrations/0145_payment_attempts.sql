-- One order, one payment (D73). A card payment row is a payment attempt: `pending` while it is
-- open (the cart is frozen: cart writes answer 409 payment_in_progress), and it ends paid
-- (`succeeded`), declined, or `cancelled` (abandoned by the buyer, superseded by a new checkout,
-- or ended with its cart: cancelled, expired, completed otherwise). A payment that took money but
-- cannot complete the order is `refund_required` until the scheduler has refunded it (`refunded`).

ALTER TABLE payments DROP CONSTRAINT IF EXISTS payments_status_check;
ALTER TABLE payments ADD CONSTRAINT payments_status_check
  CHECK (status IN ('pending', 'succeeded', 'declined', 'cancelled', 'refund_required', 'refunded'));

-- When the attempt was closed on our side, and when the provider confirmed its session closed
-- (NULL with status cancelled: the scheduler still has to close it at the provider).
ALTER TABLE payments ADD COLUMN closed_at timestamptz;
ALTER TABLE payments ADD COLUMN provider_closed_at timestamptz;
-- The automatic refund of a refund_required payment (retried with backoff, never twice).
ALTER TABLE payments ADD COLUMN refund_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE payments ADD COLUMN refund_next_at timestamptz;
ALTER TABLE payments ADD COLUMN refund_error text;
ALTER TABLE payments ADD COLUMN refunded_at timestamptz;
ALTER TABLE payments ADD COLUMN refund_ref text;

-- Older rows: every pending attempt but the newest of its order is closed, so that the index
-- below (never two open attempts for one order) can be built.
UPDATE payments p SET status = 'cancelled', failure_reason = 'superseded', closed_at = p.updated_at
 WHERE p.status = 'pending'
   AND EXISTS (SELECT 1 FROM payments q WHERE q.order_id = p.order_id AND q.status = 'pending'
                 AND (q.created_at, q.id) > (p.created_at, p.id));
UPDATE payments p SET status = 'cancelled', failure_reason = 'order_' || o.status, closed_at = p.updated_at
  FROM orders o
 WHERE o.id = p.order_id AND p.status = 'pending' AND o.status IN ('cancelled', 'expired', 'completed')
   AND o.transaction_id IS DISTINCT FROM p.id;

CREATE UNIQUE INDEX payments_one_open_attempt_idx ON payments (order_id) WHERE status = 'pending';
CREATE INDEX payments_to_close_idx ON payments (closed_at) WHERE status = 'cancelled' AND provider_closed_at IS NULL;
CREATE INDEX payments_status_idx ON payments (status, created_at);

-- The attempt ends with its cart: when an order leaves `pending` (cancelled, expired, completed by
-- anything but this attempt), its open attempt is closed in the same transaction; the provider's
-- session is closed by the scheduler next (payment-attempts job). The function's body lives in
-- src/db/functions/145_close_payment_attempts.sql; this placeholder exists for CREATE TRIGGER.
CREATE FUNCTION close_payment_attempts() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END; $$;
CREATE TRIGGER orders_close_payment_attempts
  AFTER UPDATE OF status ON orders
  FOR EACH ROW
  WHEN (OLD.status = 'pending' AND NEW.status <> 'pending')
  EXECUTE FUNCTION close_payment_attempts();

-- The payment refund e-mail (D73): one per payment, several per order possible.
ALTER TABLE email_outbox ADD COLUMN payment_id text REFERENCES payments(id);
ALTER TABLE email_outbox DROP CONSTRAINT IF EXISTS email_outbox_kind_check;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_kind_check CHECK (kind IN ('tickets', 'refund', 'payment_refunded'));
ALTER TABLE email_outbox DROP CONSTRAINT IF EXISTS email_outbox_order_id_kind_key;
CREATE UNIQUE INDEX email_outbox_order_kind_idx ON email_outbox (order_id, kind) WHERE payment_id IS NULL;
CREATE UNIQUE INDEX email_outbox_payment_kind_idx ON email_outbox (payment_id, kind) WHERE payment_id IS NOT NULL;

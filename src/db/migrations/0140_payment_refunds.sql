-- Refunds that return the money (D58, issue 25): what the card provider gave back, once per key.

-- The provider's reference of the money movement (a Stripe payment intent), recorded from the
-- notification that captured it; a refund names it. NULL for payments captured before 0140.
ALTER TABLE payments ADD COLUMN transaction_ref text;

-- One row per refund the provider confirmed. `key` is the caller's idempotency key (also sent to the
-- provider): its UNIQUE makes a refund happen at most once per key, whatever runs in parallel.
CREATE TABLE payment_refunds (
  id bigserial PRIMARY KEY,
  payment_id text NOT NULL REFERENCES payments(id),
  provider text NOT NULL,
  amount integer NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  provider_refund_ref text NOT NULL,
  reason text NOT NULL,
  key text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL
);
CREATE INDEX payment_refunds_payment_idx ON payment_refunds (payment_id);

-- The built-in sandbox provider's own ledger of refunds (what Stripe keeps on its side): its test
-- card page shows them. Keyed by the idempotency key the provider was asked with.
CREATE TABLE sandbox_refunds (
  id text PRIMARY KEY,
  payment_id text NOT NULL REFERENCES payments(id),
  amount integer NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  reason text NOT NULL,
  idempotency_key text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL
);
CREATE INDEX sandbox_refunds_payment_idx ON sandbox_refunds (payment_id);

-- Card payments of the portal (models A and C): one row per checkout attempt, and every provider
-- notification processed once (idempotency: a replayed notification finds its id already here).

CREATE TABLE payments (
  id text PRIMARY KEY,
  order_id bigint NOT NULL REFERENCES orders(id),
  channel_id integer NOT NULL REFERENCES sales_channels(id),
  provider text NOT NULL CHECK (provider IN ('sandbox', 'stripe')),
  -- the provider's own id for the attempt (a Stripe Checkout Session id); NULL for the sandbox
  provider_ref text,
  amount integer NOT NULL CHECK (amount >= 0),
  currency text NOT NULL,
  lang text NOT NULL,
  -- pending: buyer sent to the provider; succeeded: order completed; declined: card refused;
  -- refund_required: money taken but the order could not be completed (seats gone, amount differs)
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'declined', 'refund_required')),
  buyer_name text NOT NULL,
  buyer_surname text NOT NULL,
  buyer_email text NOT NULL,
  buyer_phone text,
  failure_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX payments_order_idx ON payments (order_id);
CREATE UNIQUE INDEX payments_provider_ref_idx ON payments (provider, provider_ref) WHERE provider_ref IS NOT NULL;
CREATE INDEX payments_refund_required_idx ON payments (channel_id) WHERE status = 'refund_required';

CREATE TABLE payment_notifications (
  provider text NOT NULL,
  notification_id text NOT NULL,
  payment_id text REFERENCES payments(id),
  kind text NOT NULL,
  result text,
  received_at timestamptz NOT NULL,
  PRIMARY KEY (provider, notification_id)
);

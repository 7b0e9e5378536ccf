-- Closing the sale (issue 4): tickets, refunds' audit data, and the durable e-mail queue.

-- One ticket per order item. The code is random and unguessable (it is what the QR holds);
-- order_item_id is UNIQUE so that no race can ever issue two tickets for one item.
CREATE TABLE tickets (
  id bigserial PRIMARY KEY,
  code text NOT NULL UNIQUE,
  order_id bigint NOT NULL REFERENCES orders(id),
  order_item_id bigint NOT NULL UNIQUE REFERENCES order_items(id),
  status text NOT NULL DEFAULT 'valid' CHECK (status IN ('valid', 'void')),
  issued_at timestamptz NOT NULL,
  voided_at timestamptz
);
CREATE INDEX tickets_order_idx ON tickets (order_id);

-- Who refunded what and why. The refund itself is an orders row of type 'refund'
-- (docs/architecture.md); the UNIQUE on refunded_order_id makes a second refund impossible.
CREATE TABLE order_refunds (
  refund_order_id bigint PRIMARY KEY REFERENCES orders(id),
  refunded_order_id bigint NOT NULL UNIQUE REFERENCES orders(id),
  reason text NOT NULL,
  actor text NOT NULL,
  created_at timestamptz NOT NULL
);

-- Outgoing e-mail, written in the same transaction as the state it reports (the closing), sent
-- later by processEmailQueue. A worker claims a due row by setting lease_until (FOR UPDATE SKIP
-- LOCKED); nobody else touches it until the lease runs out. One ticket e-mail per order.
CREATE TABLE email_outbox (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('tickets')),
  order_id bigint NOT NULL REFERENCES orders(id),
  recipient text NOT NULL,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed', 'skipped')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  lease_until timestamptz,
  lease_owner text,
  last_error text,
  created_at timestamptz NOT NULL,
  sent_at timestamptz,
  UNIQUE (order_id, kind)
);
CREATE INDEX email_outbox_due_idx ON email_outbox (next_attempt_at) WHERE status = 'queued';

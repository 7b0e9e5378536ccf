-- Refunds of whole orders or chosen tickets (D58, D30; issue 25).

-- Whether a refund gives the fees back too (D58: the organiser's setting, default true).
ALTER TABLE organisers ADD COLUMN refund_fees boolean NOT NULL DEFAULT true;

-- An order may now be refunded in several parts (chosen tickets): one order_refunds row per
-- refund. What each refund covered is refund_items, whose UNIQUE order_item_id makes a ticket
-- refundable once, whatever runs in parallel.
ALTER TABLE order_refunds DROP CONSTRAINT IF EXISTS order_refunds_refunded_order_id_key;
CREATE INDEX order_refunds_refunded_idx ON order_refunds (refunded_order_id);
-- The card refund of a refund: the payment, its provider and the provider's reference (NULL when
-- no card payment of this service paid the order: models B and D, reservations, box office).
ALTER TABLE order_refunds
  ADD COLUMN payment_id text REFERENCES payments(id),
  ADD COLUMN provider text,
  ADD COLUMN provider_refund_ref text,
  ADD COLUMN fees_refunded boolean NOT NULL DEFAULT true;

CREATE TABLE refund_items (
  refund_order_id bigint NOT NULL REFERENCES orders(id),
  order_item_id bigint NOT NULL UNIQUE REFERENCES order_items(id),
  ticket_id bigint REFERENCES tickets(id),
  -- What this refund gave back for the item, negative like the refund row (D30).
  base_amount integer NOT NULL,
  discount_amount integer NOT NULL,
  fee_amount integer NOT NULL,
  total_amount integer NOT NULL,
  PRIMARY KEY (refund_order_id, order_item_id)
);

-- Refunds made before 0141 refunded whole orders, fees included.
INSERT INTO refund_items (refund_order_id, order_item_id, ticket_id, base_amount, discount_amount, fee_amount, total_amount)
SELECT r.refund_order_id, i.id, t.id, -i.base_amount, -i.discount_amount, -i.fee_amount, -i.total_amount
FROM order_refunds r
JOIN order_items i ON i.order_id = r.refunded_order_id
LEFT JOIN tickets t ON t.order_item_id = i.id
ON CONFLICT DO NOTHING;

-- The durable e-mail queue learns the buyer's refund e-mail: one per refund (order_id is the
-- refund's own orders row, so UNIQUE (order_id, kind) sends it once).
ALTER TABLE email_outbox DROP CONSTRAINT IF EXISTS email_outbox_kind_check;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_kind_check CHECK (kind IN ('tickets', 'refund'));

-- A refund asks whether a ticket was checked in on any list (D58, allow_used).
CREATE INDEX checkin_entries_ticket_idx ON checkin_entries (ticket_id);

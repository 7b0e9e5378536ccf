-- Cart and inventory (issue 3): guards and indexes for holds, items and voucher uses.
-- No new tables: orders, order_items, session_seats and order_vouchers come from 0001.

-- The inventory states of docs/architecture.md, enforced: a hold names its cart and its expiry,
-- a free row names no order.
ALTER TABLE session_seats
  ADD CONSTRAINT session_seats_held_has_order CHECK (status <> 'held' OR (order_id IS NOT NULL AND hold_expires_at IS NOT NULL)),
  ADD CONSTRAINT session_seats_free_has_no_order CHECK (status <> 'available' OR order_id IS NULL);

-- Totals are always consistent (DECISIONS D11); a discount is never positive on an item.
ALTER TABLE orders
  ADD CONSTRAINT orders_total_consistent CHECK (total_amount = base_amount + discount_amount + fee_amount);
ALTER TABLE order_items
  ADD CONSTRAINT order_items_discount_not_positive CHECK (discount_amount <= 0);

-- Zone places are claimed with FOR UPDATE SKIP LOCKED over the free rows of one zone, in id order.
CREATE INDEX session_seats_zone_idx ON session_seats (session_id, sector_id, id) WHERE seat_id IS NULL;

-- Voucher uses are counted per voucher across live and completed orders.
CREATE INDEX order_vouchers_voucher_idx ON order_vouchers (voucher_id);

-- Which orders ever held an inventory row (expired carts keep their items for history).
CREATE INDEX order_items_session_seat_idx ON order_items (session_seat_id);

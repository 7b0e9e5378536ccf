-- Sales report (issue 5): the report walks one channel's transactions newest first and stops at
-- 500 rows. Only completed and cancelled orders are transactions (carts and expired carts are not),
-- so the index holds only those; created_at, id is the report's order, so no sort step is needed.
CREATE INDEX orders_report_idx ON orders (channel_id, created_at DESC, id DESC)
  WHERE status IN ('completed', 'cancelled');

-- The event filter asks, per order, "has an item of one of these events?": answered from the index
-- alone instead of visiting every item row.
CREATE INDEX order_items_order_event_idx ON order_items (order_id, event_id);

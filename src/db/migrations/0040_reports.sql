-- Sales report (issue 5): the report walks one channel's transactions newest first and stops at
-- 500 rows. Only completed and cancelled orders are transactions (carts and expired carts are not),
-- so the index holds only those; created_at, id is the report's order, so no sort step is needed.
CREATE INDEX orders_report_idx ON orders (channel_id, created_at DESC, id DESC)
  WHERE status IN ('completed', 'cancelled');

-- Per report row the items of an order are read twice, both from this index alone (no heap visits):
-- the event filter ("has an item of one of these events?") and the first item's event and session
-- with the ticket count.
CREATE INDEX order_items_report_idx ON order_items (order_id, event_id) INCLUDE (id, session_id);

-- The report's event index (order_events, migration 0041) rows of one transaction, written by the
-- deferred triggers order_events_on_status and order_events_on_insert when an order becomes
-- completed or cancelled. A refund takes the events of the order it refunds.
CREATE OR REPLACE FUNCTION order_events_write() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO order_events (channel_id, event_id, created_at, order_id)
  SELECT DISTINCT NEW.channel_id, i.event_id, NEW.created_at, NEW.id
  FROM order_items i
  WHERE i.order_id = COALESCE(NEW.refunded_order_id, NEW.id)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END;
$$;

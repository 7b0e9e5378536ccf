-- Every transaction's order_events rows, set-based; adds only what is missing. Used by migration
-- 0041 and after a bulk load that bypassed the triggers (bench/report.bench.ts; a restore with
-- triggers disabled). Returns the number of rows added.
CREATE OR REPLACE FUNCTION order_events_backfill() RETURNS bigint
LANGUAGE sql AS $$
  WITH added AS (
    INSERT INTO order_events (channel_id, event_id, created_at, order_id)
    SELECT DISTINCT o.channel_id, i.event_id, o.created_at, o.id
    FROM orders o
    JOIN order_items i ON i.order_id = COALESCE(o.refunded_order_id, o.id)
    WHERE o.status IN ('completed', 'cancelled')
    ON CONFLICT DO NOTHING
    RETURNING 1)
  SELECT count(*) FROM added;
$$;

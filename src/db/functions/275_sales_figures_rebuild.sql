-- The sales overview's kept figures recomputed from the base tables (orders, order_items,
-- refund_items), all in slot 0: the backfill of migration 0270, and the repair after a bulk load
-- that bypassed the triggers (bench/report.bench.ts loads with session_replication_role = replica)
-- or a restore with triggers disabled. The lock keeps writers out while it reads, so no change
-- falls between the delete and the recomputation; every order is then in the kept rows, none
-- marked `figures_pending` (migration 0342). Returns the number of rows written.
CREATE OR REPLACE FUNCTION sales_figures_rebuild() RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_rows bigint;
  v_hourly bigint;
BEGIN
  LOCK TABLE orders, order_items, refund_items IN SHARE MODE;
  DELETE FROM sales_figures;
  DELETE FROM sales_figures_hourly;
  UPDATE orders SET figures_pending = false WHERE figures_pending;
  INSERT INTO sales_figures (session_id, channel_id, rate_id, sector_id, slot, items, refunded,
                             base_amount, discount_amount, fee_amount, total_amount, refund_amount)
  SELECT i.session_id, o.channel_id, i.rate_id, i.sector_id, 0, count(*), count(ri.order_item_id),
         sum(i.base_amount), sum(i.discount_amount), sum(i.fee_amount), sum(i.total_amount), COALESCE(sum(-ri.total_amount), 0)
  FROM order_items i
  JOIN orders o ON o.id = i.order_id AND o.status = 'completed' AND o.type IN ('purchase', 'reservation')
  LEFT JOIN refund_items ri ON ri.order_item_id = i.id
  GROUP BY i.session_id, o.channel_id, i.rate_id, i.sector_id;
  GET DIAGNOSTICS v_rows = ROW_COUNT;
  INSERT INTO sales_figures_hourly (session_id, hour, slot, items, total_amount)
  SELECT i.session_id, date_trunc('hour', o.completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', 0, count(*), sum(i.total_amount)
  FROM order_items i
  JOIN orders o ON o.id = i.order_id AND o.status = 'completed' AND o.type IN ('purchase', 'reservation')
  WHERE o.completed_at IS NOT NULL
  GROUP BY 1, 2;
  GET DIAGNOSTICS v_hourly = ROW_COUNT;
  RETURN v_rows + v_hourly;
END;
$$;

-- What each item of an order that complete_order marked `figures_pending` (migration 0342) adds
-- to the kept sales figures (D66), if the order counts (a completed purchase or reservation): as
-- sales_figures_add_order counts one order, before grouping. Read by sales_figures_current(),
-- sales_figures_hourly_current() and sales_figures_apply_pending.
--
-- SQL functions of one SELECT, STABLE, not STRICT (this one and the two readers): PostgreSQL
-- inlines them into the statement that reads them, so its conditions (the event's sessions) reach
-- the tables' indexes (orders_figures_pending_idx, then the items by order).
CREATE OR REPLACE FUNCTION sales_figures_pending()
RETURNS TABLE (order_id bigint, session_id integer, channel_id integer, rate_id integer, sector_id integer, hour timestamptz,
               items integer, refunded integer, base_amount bigint, discount_amount bigint, fee_amount bigint,
               total_amount bigint, refund_amount bigint)
LANGUAGE sql STABLE AS $$
  SELECT o.id, i.session_id, o.channel_id, i.rate_id, i.sector_id,
         date_trunc('hour', o.completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
         1, (ri.order_item_id IS NOT NULL)::integer,
         i.base_amount::bigint, i.discount_amount::bigint, i.fee_amount::bigint, i.total_amount::bigint,
         -COALESCE(ri.total_amount, 0)::bigint
  FROM orders o
  JOIN order_items i ON i.order_id = o.id
  LEFT JOIN refund_items ri ON ri.order_item_id = i.id
  WHERE o.figures_pending AND o.status = 'completed' AND o.type IN ('purchase', 'reservation')
$$;

-- Statement triggers of order_items (migration 0270): items inserted, changed or deleted while
-- their order counts in the sales overview move the figures. Items normally change only while
-- their order is a cart (then the join below finds no counted order and nothing is written); this
-- keeps the figures exact for any other write too. Transition tables: one call per statement.
CREATE OR REPLACE FUNCTION sales_figures_on_items() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_deltas sales_figures_delta[];
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    v_deltas := ARRAY(
      SELECT ROW(i.session_id, o.channel_id, i.rate_id, i.sector_id,
                 date_trunc('hour', o.completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
                 -1, -(ri.order_item_id IS NOT NULL)::int, -i.base_amount, -i.discount_amount, -i.fee_amount,
                 -i.total_amount, COALESCE(ri.total_amount, 0))::sales_figures_delta
      FROM old_items i
      JOIN orders o ON o.id = i.order_id AND o.status = 'completed' AND o.type IN ('purchase', 'reservation')
      LEFT JOIN refund_items ri ON ri.order_item_id = i.id);
    -- A cart's items (the purchase path) give no delta: no call.
    IF cardinality(v_deltas) > 0 THEN
      PERFORM sales_figures_add(v_deltas);
    END IF;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    v_deltas := ARRAY(
      SELECT ROW(i.session_id, o.channel_id, i.rate_id, i.sector_id,
                 date_trunc('hour', o.completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
                 1, (ri.order_item_id IS NOT NULL)::int, i.base_amount, i.discount_amount, i.fee_amount,
                 i.total_amount, COALESCE(-ri.total_amount, 0))::sales_figures_delta
      FROM new_items i
      JOIN orders o ON o.id = i.order_id AND o.status = 'completed' AND o.type IN ('purchase', 'reservation')
      LEFT JOIN refund_items ri ON ri.order_item_id = i.id);
    -- A cart's items (the purchase path) give no delta: no call.
    IF cardinality(v_deltas) > 0 THEN
      PERFORM sales_figures_add(v_deltas);
    END IF;
  END IF;
  RETURN NULL;
END;
$$;

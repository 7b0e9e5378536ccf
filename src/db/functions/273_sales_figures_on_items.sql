-- Statement triggers of order_items (migration 0270): items inserted, changed or deleted while
-- their order counts in the sales overview move the figures. Items normally change only while
-- their order is a cart (then the join below finds no counted order and nothing is written); this
-- keeps the figures exact for any other write too. Transition tables: one call per statement. The
-- rows the statement took away count negative (sign -1), the rows it wrote positive; an UPDATE
-- gives both, in one call of sales_figures_add (which sums each group's deltas). An order marked
-- `figures_pending` is not in the kept rows yet (sales_figures_apply_pending reads its items then).
CREATE OR REPLACE FUNCTION sales_figures_on_items() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_old order_items[] := '{}';
  v_new order_items[] := '{}';
  v_deltas sales_figures_delta[];
BEGIN
  -- A transition table exists only for the operations its trigger names: each is read in its branch.
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    v_old := ARRAY(SELECT i::order_items FROM old_items i);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    v_new := ARRAY(SELECT i::order_items FROM new_items i);
  END IF;
  v_deltas := ARRAY(
    SELECT ROW(i.session_id, o.channel_id, i.rate_id, i.sector_id,
               date_trunc('hour', o.completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
               i.sign, i.sign * (ri.order_item_id IS NOT NULL)::int, i.sign * i.base_amount, i.sign * i.discount_amount,
               i.sign * i.fee_amount, i.sign * i.total_amount, -i.sign * COALESCE(ri.total_amount, 0))::sales_figures_delta
    FROM (SELECT -1 AS sign, * FROM unnest(v_old) UNION ALL SELECT 1, * FROM unnest(v_new)) i
    JOIN orders o ON o.id = i.order_id AND o.status = 'completed' AND o.type IN ('purchase', 'reservation') AND NOT o.figures_pending
    LEFT JOIN refund_items ri ON ri.order_item_id = i.id);
  -- A cart's items (the purchase path) give no delta: no call.
  IF cardinality(v_deltas) > 0 THEN
    PERFORM sales_figures_add(v_deltas);
  END IF;
  RETURN NULL;
END;
$$;

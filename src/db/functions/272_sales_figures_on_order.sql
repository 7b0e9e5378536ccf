-- Trigger of orders (migration 0270): an order that starts or stops counting in the sales overview
-- (status completed, type purchase or reservation), or a counted order whose channel or completion
-- time changes, moves its items' figures: one delta per item, with what its refund gave back.
-- Completing an order (close_order, reservations) is the only such change on the purchase path:
-- one upsert per (session, rate, sector) of its items and one per session into the hourly
-- figures. The queries are written here, not in an SQL function: PL/pgSQL keeps their plans
-- (an SQL function returning an array is planned again on every call, about 1 ms).
-- BEFORE DELETE: the items are still there to subtract (ON DELETE CASCADE removes them afterwards,
-- and the items' trigger then finds no order).
CREATE OR REPLACE FUNCTION sales_figures_on_order() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_deltas sales_figures_delta[];
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status = 'completed' AND OLD.type IN ('purchase', 'reservation') THEN
    v_deltas := ARRAY(
      SELECT ROW(i.session_id, OLD.channel_id, i.rate_id, i.sector_id,
                 date_trunc('hour', OLD.completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
                 -1, -(ri.order_item_id IS NOT NULL)::int, -i.base_amount, -i.discount_amount, -i.fee_amount,
                 -i.total_amount, COALESCE(ri.total_amount, 0))::sales_figures_delta
      FROM order_items i LEFT JOIN refund_items ri ON ri.order_item_id = i.id
      WHERE i.order_id = OLD.id);
    PERFORM sales_figures_add(v_deltas);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.status = 'completed' AND NEW.type IN ('purchase', 'reservation') THEN
    v_deltas := ARRAY(
      SELECT ROW(i.session_id, NEW.channel_id, i.rate_id, i.sector_id,
                 date_trunc('hour', NEW.completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
                 1, (ri.order_item_id IS NOT NULL)::int, i.base_amount, i.discount_amount, i.fee_amount,
                 i.total_amount, COALESCE(-ri.total_amount, 0))::sales_figures_delta
      FROM order_items i LEFT JOIN refund_items ri ON ri.order_item_id = i.id
      WHERE i.order_id = NEW.id);
    PERFORM sales_figures_add(v_deltas);
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NULL;
END;
$$;

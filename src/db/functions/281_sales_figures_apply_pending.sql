-- Adds the orders that complete_order marked `figures_pending` (migration 0342) to the kept sales
-- figures (D66), oldest first, at most p_limit of them, and clears their mark: their deltas go
-- through sales_figures_add, one upsert per table for all of them (what each order adds is
-- sales_figures_pending(), which the readers count until then). Run by the `sales-figures`
-- job (src/modules/audience/sales-figures.jobs.ts). Returns the number of orders taken.
--
-- The marked orders and their items are locked first (FOR UPDATE, which also conflicts with the
-- key-share lock of a new item's or refund's foreign key), and the figures read by the statements
-- after, each with a snapshot of its own: a change to such an order (its status, its items, a
-- refund) either committed before the lock, and is read here, or waits for this transaction and
-- then finds the order no longer marked, so that its trigger moves the kept figures itself.
-- Concurrent calls skip what another holds (SKIP LOCKED): each marked order is added once.
CREATE OR REPLACE FUNCTION sales_figures_apply_pending(p_limit integer) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_ids bigint[];
BEGIN
  SELECT array_agg(id ORDER BY id) INTO v_ids FROM (
    SELECT o.id FROM orders o WHERE o.figures_pending ORDER BY o.id LIMIT p_limit FOR UPDATE SKIP LOCKED) o;
  IF v_ids IS NULL THEN
    RETURN 0;
  END IF;
  PERFORM 1 FROM order_items i WHERE i.order_id = ANY(v_ids) ORDER BY i.id FOR UPDATE;

  -- What each marked order adds, as the deltas the triggers add (one upsert per table and group).
  PERFORM sales_figures_add(ARRAY(
    SELECT ROW(p.session_id, p.channel_id, p.rate_id, p.sector_id, p.hour, p.items, p.refunded,
               p.base_amount, p.discount_amount, p.fee_amount, p.total_amount, p.refund_amount)::sales_figures_delta
    FROM sales_figures_pending() p
    WHERE p.order_id = ANY(v_ids)
    ORDER BY p.session_id, p.channel_id, p.rate_id, p.sector_id));
  UPDATE orders SET figures_pending = false WHERE id = ANY(v_ids);
  RETURN cardinality(v_ids);
END;
$$;

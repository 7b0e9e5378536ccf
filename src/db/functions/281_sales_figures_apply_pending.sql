-- Adds the orders that complete_order marked `figures_pending` (migration 0342) to the kept sales
-- figures (D66), oldest first, at most p_limit of them, and clears their mark: one upsert per table
-- for all of them, grouped as sales_figures_add_order groups one order (what each order adds is
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

  INSERT INTO sales_figures AS f (session_id, channel_id, rate_id, sector_id, slot, items, refunded,
                                  base_amount, discount_amount, fee_amount, total_amount, refund_amount)
  SELECT p.session_id, p.channel_id, p.rate_id, p.sector_id, sales_figures_slot(), sum(p.items), sum(p.refunded),
         sum(p.base_amount), sum(p.discount_amount), sum(p.fee_amount), sum(p.total_amount), sum(p.refund_amount)
  FROM sales_figures_pending() p
  WHERE p.order_id = ANY(v_ids)
  GROUP BY p.session_id, p.channel_id, p.rate_id, p.sector_id
  ORDER BY p.session_id, p.channel_id, p.rate_id, p.sector_id
  ON CONFLICT (session_id, channel_id, rate_id, sector_id, slot) DO UPDATE
    SET items = f.items + EXCLUDED.items, refunded = f.refunded + EXCLUDED.refunded,
        base_amount = f.base_amount + EXCLUDED.base_amount, discount_amount = f.discount_amount + EXCLUDED.discount_amount,
        fee_amount = f.fee_amount + EXCLUDED.fee_amount, total_amount = f.total_amount + EXCLUDED.total_amount,
        refund_amount = f.refund_amount + EXCLUDED.refund_amount;
  INSERT INTO sales_figures_hourly AS h (session_id, hour, slot, items, total_amount)
  SELECT p.session_id, p.hour, sales_figures_slot(), sum(p.items), sum(p.total_amount)
  FROM sales_figures_pending() p
  WHERE p.order_id = ANY(v_ids) AND p.hour IS NOT NULL
  GROUP BY p.session_id, p.hour
  ORDER BY p.session_id, p.hour
  ON CONFLICT (session_id, hour, slot) DO UPDATE
    SET items = h.items + EXCLUDED.items, total_amount = h.total_amount + EXCLUDED.total_amount;
  UPDATE orders SET figures_pending = false WHERE id = ANY(v_ids);
  RETURN cardinality(v_ids);
END;
$$;

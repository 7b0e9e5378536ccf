-- The kept sales figures (D66, 270_sales_figures_add.sql) of one whole order, p_sign = 1 when it
-- starts counting and -1 when it stops: its items (with what their refunds gave back) grouped as
-- sales_figures_add groups deltas, straight from order_items into the same upserts, key order and
-- slot, without building an array of deltas first. p_channel_id and p_completed_at are the
-- order's as it counts (or counted): the hourly figures take the completion's UTC hour, none
-- without one.
--
-- Called by the orders trigger (sales_figures_on_order) for every change of a counted order that is
-- in the kept rows already. An order becomes counted in complete_order, which only marks it
-- (`figures_pending`, migration 0342); sales_figures_apply_pending adds the marked orders in bulk.
CREATE OR REPLACE FUNCTION sales_figures_add_order(p_order_id bigint, p_channel_id integer, p_completed_at timestamptz, p_sign integer)
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sales_figures AS f (session_id, channel_id, rate_id, sector_id, slot, items, refunded,
                                  base_amount, discount_amount, fee_amount, total_amount, refund_amount)
  SELECT i.session_id, p_channel_id, i.rate_id, i.sector_id, sales_figures_slot(), p_sign * count(*), p_sign * count(ri.order_item_id),
         p_sign * sum(i.base_amount), p_sign * sum(i.discount_amount), p_sign * sum(i.fee_amount), p_sign * sum(i.total_amount),
         -p_sign * COALESCE(sum(ri.total_amount), 0)
  FROM order_items i LEFT JOIN refund_items ri ON ri.order_item_id = i.id
  WHERE i.order_id = p_order_id
  GROUP BY i.session_id, i.rate_id, i.sector_id
  ORDER BY i.session_id, i.rate_id, i.sector_id
  ON CONFLICT (session_id, channel_id, rate_id, sector_id, slot) DO UPDATE
    SET items = f.items + EXCLUDED.items, refunded = f.refunded + EXCLUDED.refunded,
        base_amount = f.base_amount + EXCLUDED.base_amount, discount_amount = f.discount_amount + EXCLUDED.discount_amount,
        fee_amount = f.fee_amount + EXCLUDED.fee_amount, total_amount = f.total_amount + EXCLUDED.total_amount,
        refund_amount = f.refund_amount + EXCLUDED.refund_amount;
  IF p_completed_at IS NOT NULL THEN
    INSERT INTO sales_figures_hourly AS h (session_id, hour, slot, items, total_amount)
    SELECT i.session_id, date_trunc('hour', p_completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', sales_figures_slot(),
           p_sign * count(*), p_sign * sum(i.total_amount)
    FROM order_items i
    WHERE i.order_id = p_order_id
    GROUP BY i.session_id
    ORDER BY i.session_id
    ON CONFLICT (session_id, hour, slot) DO UPDATE
      SET items = h.items + EXCLUDED.items, total_amount = h.total_amount + EXCLUDED.total_amount;
  END IF;
END;
$$;

-- What one counted order (completed purchase or reservation) adds to the sales overview's kept
-- figures (migration 0270), times p_sign: one delta per item, with what its refund gave back.
-- The order's channel and completion time are passed in (OLD or NEW of the orders trigger).
CREATE OR REPLACE FUNCTION sales_figures_of_order(p_order_id bigint, p_channel_id integer, p_completed_at timestamptz, p_sign integer)
RETURNS sales_figures_delta[]
LANGUAGE sql STABLE AS $$
  SELECT COALESCE(array_agg(ROW(
           i.session_id, p_channel_id, i.rate_id, i.sector_id,
           date_trunc('hour', p_completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
           p_sign, p_sign * (ri.order_item_id IS NOT NULL)::int,
           p_sign * i.base_amount, p_sign * i.discount_amount, p_sign * i.fee_amount, p_sign * i.total_amount,
           p_sign * COALESCE(-ri.total_amount, 0))::sales_figures_delta), '{}')
  FROM order_items i
  LEFT JOIN refund_items ri ON ri.order_item_id = i.id
  WHERE i.order_id = p_order_id;
$$;

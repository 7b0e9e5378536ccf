-- The shape of an order's rows (order_rows_json, 020, says what they hold and who reads them).
-- p_vouchers: [{code, kind, value}] in the order they were applied, or null; p_items: order_item_row
-- of each item by id, or null.
CREATE OR REPLACE FUNCTION order_rows_build(
  p_order_token text, p_reference text, p_type text, p_status text, p_currency text,
  p_base integer, p_discount integer, p_fee integer, p_total integer, p_expires_at timestamptz,
  p_vouchers json, p_items json
) RETURNS json
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'order_token', p_order_token, 'reference', p_reference, 'type', p_type, 'status', p_status,
    'currency', p_currency, 'base_amount', p_base, 'discount_amount', p_discount,
    'fee_amount', p_fee, 'total_amount', p_total, 'expires_at', p_expires_at,
    'vouchers', p_vouchers, 'items', p_items)
$$;

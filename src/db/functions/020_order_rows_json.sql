-- The order's own data as JSON: its columns, its vouchers, its items' ids and amounts, without
-- catalogue names (Node adds those from src/modules/orders/orders.labels.ts). Returned by
-- cart_hold_seat and close_order, and read by the order view (src/modules/orders/orders.view.ts).
-- plpgsql rather than sql: PostgreSQL 15 plans a non-inlined SQL function's body on every call,
-- while plpgsql caches the plan per connection.
CREATE OR REPLACE FUNCTION order_rows_json(p_order_id bigint) RETURNS json
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
    SELECT json_build_object(
      'order_token', o.order_token, 'reference', o.reference, 'type', o.type, 'status', o.status,
      'currency', o.currency, 'base_amount', o.base_amount, 'discount_amount', o.discount_amount,
      'fee_amount', o.fee_amount, 'total_amount', o.total_amount, 'expires_at', o.expires_at,
      'vouchers', (SELECT json_agg(json_build_object('code', ov.code, 'kind', vo.kind, 'value', vo.value) ORDER BY ov.created_at)
                   FROM order_vouchers ov JOIN vouchers vo ON vo.id = ov.voucher_id WHERE ov.order_id = o.id),
      -- [id, event_id, session_id, sector_id, session_seat_id, rate_id, base, discount, fee, total]
      'items', (SELECT json_agg(json_build_array(i.id, i.event_id, i.session_id, i.sector_id, i.session_seat_id, i.rate_id,
                                                 i.base_amount, i.discount_amount, i.fee_amount, i.total_amount) ORDER BY i.id)
                FROM order_items i WHERE i.order_id = o.id))
    FROM orders o WHERE o.id = p_order_id);
END;
$$;

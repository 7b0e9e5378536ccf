-- The order's own data as JSON: its columns, its vouchers, its items' ids and amounts, without
-- catalogue names (Node adds those from src/modules/orders/orders.labels.ts). Returned by
-- cart_hold_seats and close_order, and read by the order view (src/modules/orders/orders.view.ts).
--
-- The shape is defined once, by order_rows_build (019) and order_item_row (018), SQL functions that
-- PostgreSQL inlines into the calling statement: order_rows_json reads an order from its tables, and
-- cart_hold_seats builds a new order's rows from what it has just written instead of reading them
-- back (under callgrind reading them cost a hold 0.23 M instructions, building them 0.12 M:
-- docs/operations.md).
--
-- plpgsql rather than sql: PostgreSQL 15 plans a non-inlined SQL function's body on every call,
-- while plpgsql caches the plan per connection.
CREATE OR REPLACE FUNCTION order_rows_json(p_order_id bigint) RETURNS json
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
    SELECT order_rows_build(
      o.order_token, o.reference, o.type, o.status, o.currency, o.base_amount, o.discount_amount, o.fee_amount,
      o.total_amount, o.expires_at,
      (SELECT json_agg(json_build_object('code', ov.code, 'kind', vo.kind, 'value', vo.value) ORDER BY ov.created_at)
       FROM order_vouchers ov JOIN vouchers vo ON vo.id = ov.voucher_id WHERE ov.order_id = o.id),
      (SELECT json_agg(order_item_row(i.id, i.event_id, i.session_id, i.sector_id, i.session_seat_id, i.rate_id,
                                      i.base_amount, i.discount_amount, i.fee_amount, i.total_amount) ORDER BY i.id)
       FROM order_items i WHERE i.order_id = o.id))
    FROM orders o WHERE o.id = p_order_id);
END;
$$;

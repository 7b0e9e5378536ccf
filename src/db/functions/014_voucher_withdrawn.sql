-- D75: whether the voucher an order carries has been withdrawn by its organiser since it was
-- applied: disabled (active = false), expired or not yet valid at p_now, or restricted so that no
-- item of the order is in its scope any more (event, session, rate: each must match when set, as
-- orders.pricing.ts inVoucherScope). A cart that has not started paying loses such a voucher at its
-- next change (orders.service.ts changeCart and the hold) or at confirm (close_order), with 409
-- voucher_withdrawn. False for an order without a voucher.
-- plpgsql rather than sql: a SQL function with a FROM is not inlined, and PostgreSQL 15 plans a
-- non-inlined SQL function's body on every call, while plpgsql caches the plan per connection.
CREATE OR REPLACE FUNCTION voucher_withdrawn(p_order_id bigint, p_now timestamptz) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (
    SELECT 1 FROM order_vouchers ov JOIN vouchers v ON v.id = ov.voucher_id
    WHERE ov.order_id = p_order_id
      AND (NOT v.active
           OR (v.valid_until IS NOT NULL AND v.valid_until <= p_now)
           OR (v.valid_from IS NOT NULL AND v.valid_from > p_now)
           OR NOT EXISTS (SELECT 1 FROM order_items i
                          WHERE i.order_id = p_order_id
                            AND (v.event_id IS NULL OR v.event_id = i.event_id)
                            AND (v.session_id IS NULL OR v.session_id = i.session_id)
                            AND (v.rate_id IS NULL OR v.rate_id = i.rate_id))));
END;
$$;

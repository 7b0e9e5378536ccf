-- D73: marks the order of a new payment attempt `payment_attempted` (migration 0343), so that
-- orders_close_payment_attempts fires for this order when it leaves pending, and only for orders
-- that had an attempt. Run by the trigger payments_mark_order on every insert into payments: the
-- checkout inserts its attempt under the order's lock (payments.service.ts startCheckout), so the
-- update waits for nothing. The mark stays set: an order has at most one open attempt at a time,
-- but may open another after one is superseded or declined.
CREATE OR REPLACE FUNCTION payments_mark_order() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE orders SET payment_attempted = true WHERE id = NEW.order_id AND NOT payment_attempted;
  RETURN NULL;
END;
$$;

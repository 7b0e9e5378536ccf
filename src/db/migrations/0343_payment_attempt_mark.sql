-- Issue 25 (bench:confirm): the payment attempts' trigger (D73, orders_close_payment_attempts)
-- fired for every order that left `pending`, so every confirm and every expiry ran
-- close_payment_attempts and its UPDATE of payments, though most orders never had an attempt
-- (0.07 M of the closing's instructions under callgrind, docs/operations.md). The order now
-- carries `payment_attempted`, set by the insert of any payment for it (payments_mark_order, in
-- the checkout's transaction, which holds the order's lock), and the trigger fires only for such
-- an order; close_payment_attempts keeps closing the open attempt of an order that leaves pending.
-- The stub is replaced by src/db/functions/146_payments_mark_order.sql right after the migrations.
ALTER TABLE orders ADD COLUMN payment_attempted boolean NOT NULL DEFAULT false;
UPDATE orders o SET payment_attempted = true WHERE EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.id);
CREATE OR REPLACE FUNCTION payments_mark_order() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER payments_mark_order AFTER INSERT ON payments FOR EACH ROW EXECUTE FUNCTION payments_mark_order();
-- The WHEN is one column of the old row: PostgreSQL reads a trigger's WHEN again for every
-- statement that updates orders' status, so the status test is in the function.
DROP TRIGGER orders_close_payment_attempts ON orders;
CREATE TRIGGER orders_close_payment_attempts AFTER UPDATE OF status ON orders
  FOR EACH ROW WHEN (OLD.payment_attempted) EXECUTE FUNCTION close_payment_attempts();

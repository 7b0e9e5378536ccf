-- Issue 27: PostgreSQL reads the WHEN of every row trigger an INSERT or UPDATE of orders may fire
-- again in every statement (its stored node text, about 35 instructions per character): each
-- hold pays for the three INSERT triggers' conditions, each closing for the UPDATE ones. The same
-- conditions, shorter: status is NOT NULL and one of pending, completed, cancelled, expired
-- (orders_status_check), type one of purchase, refund, reservation (orders_type_check), so
-- `= ANY ('{completed,cancelled,expired}')` is `<> 'pending'`, `= ANY (ARRAY['purchase',
-- 'reservation'])` is `<> 'refund'`, and IS DISTINCT FROM is `<>`.
DROP TRIGGER webhook_order_on_insert ON orders;
CREATE CONSTRAINT TRIGGER webhook_order_on_insert AFTER INSERT ON orders DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.status <> 'pending') EXECUTE FUNCTION webhook_order_event();
DROP TRIGGER webhook_order_on_status ON orders;
CREATE CONSTRAINT TRIGGER webhook_order_on_status AFTER UPDATE OF status ON orders DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.status <> 'pending' AND OLD.status <> NEW.status) EXECUTE FUNCTION webhook_order_event();
DROP TRIGGER order_events_on_status ON orders;
CREATE CONSTRAINT TRIGGER order_events_on_status AFTER UPDATE OF status ON orders DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.status = ANY ('{completed,cancelled}'::text[]) AND OLD.status <> NEW.status)
  EXECUTE FUNCTION order_events_write();
DROP TRIGGER sales_figures_order_insert ON orders;
CREATE TRIGGER sales_figures_order_insert AFTER INSERT ON orders
  FOR EACH ROW WHEN (NEW.status = 'completed' AND NEW.type <> 'refund') EXECUTE FUNCTION sales_figures_on_order();

-- The kept sales figures (D66): an order starts counting in complete_order, the one function that
-- completes orders (sales_figures_add_order, src/db/functions), instead of in the row trigger on
-- orders, whose machinery cost each closing more than its two upserts (callgrind on bench:confirm,
-- docs/operations.md). The trigger keeps following every change of an order that was completed
-- already (cancelled after completion, moved to another channel or hour, its type changed); its
-- WHEN is short because PostgreSQL reads it again for every statement that updates these columns.
DROP TRIGGER sales_figures_order_update ON orders;
CREATE TRIGGER sales_figures_order_update AFTER UPDATE OF status, type, channel_id, completed_at ON orders
  FOR EACH ROW WHEN (OLD.status = 'completed') EXECUTE FUNCTION sales_figures_on_order();

-- The kept sales figures (D66) as they are now, for the overview (overview.repo.ts): the rows of
-- sales_figures plus what the orders marked `figures_pending` (migration 0342) add,
-- sales_figures_pending(), read in one snapshot (an order is either marked or in the kept rows,
-- never both). The reader sums them as it sums the slots. Inlined (278_sales_figures_pending.sql).
CREATE OR REPLACE FUNCTION sales_figures_current()
RETURNS TABLE (session_id integer, channel_id integer, rate_id integer, sector_id integer, items integer, refunded integer,
               base_amount bigint, discount_amount bigint, fee_amount bigint, total_amount bigint, refund_amount bigint)
LANGUAGE sql STABLE AS $$
  SELECT f.session_id, f.channel_id, f.rate_id, f.sector_id, f.items, f.refunded,
         f.base_amount, f.discount_amount, f.fee_amount, f.total_amount, f.refund_amount
  FROM sales_figures f
  UNION ALL
  SELECT p.session_id, p.channel_id, p.rate_id, p.sector_id, p.items, p.refunded,
         p.base_amount, p.discount_amount, p.fee_amount, p.total_amount, p.refund_amount
  FROM sales_figures_pending() p
$$;

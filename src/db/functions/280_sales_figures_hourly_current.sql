-- The overview's sales over time as they are now: the rows of sales_figures_hourly plus the marked
-- orders' items by their completion's UTC hour (sales_figures_current() says why). Inlined.
CREATE OR REPLACE FUNCTION sales_figures_hourly_current()
RETURNS TABLE (session_id integer, hour timestamptz, items integer, total_amount bigint)
LANGUAGE sql STABLE AS $$
  SELECT h.session_id, h.hour, h.items, h.total_amount FROM sales_figures_hourly h
  UNION ALL
  SELECT p.session_id, p.hour, p.items, p.total_amount FROM sales_figures_pending() p WHERE p.hour IS NOT NULL
$$;

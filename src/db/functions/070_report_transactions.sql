-- Sales report (bench:report): which transactions a report lists, as a function, so that
-- the rest of the report statement has no value-dependent plan and can be a prepared statement
-- whose plan each connection keeps (src/modules/reports/reports.repo.ts, docs/reports.md).
--
-- Why EXECUTE: the best plan here depends on the values. For a 90-day window of a big channel the
-- right plan walks orders_report_idx newest first and stops at the limit; a cached generic plan
-- (what a prepared statement or a static plpgsql query switches to after five calls) estimates a
-- window of a few dozen rows and reads and sorts the whole window instead (measured twice as slow
-- on bench:report). EXECUTE plans this short statement on every call with the actual values,
-- which costs a fraction of planning the whole report. The statement texts are constants: values
-- only ever go in as USING parameters.
--
-- p_event_ids NULL: no event filter. p_from / p_to NULL: no bound (UTC instants, p_to exclusive).
-- Rows in no particular order: the caller orders them (created_at DESC, id DESC).
CREATE OR REPLACE FUNCTION report_transactions(
  p_channel_id integer, p_event_ids integer[], p_from timestamptz, p_to timestamptz,
  p_include_cancelled boolean, p_limit integer
) RETURNS TABLE (
  id bigint, reference text, type text, status text, created_at timestamptz, customer_id integer,
  payment_method text, currency text, base_amount integer, discount_amount integer, fee_amount integer,
  total_amount integer, items_order_id bigint
)
LANGUAGE plpgsql STABLE ROWS 500 AS $$
BEGIN
  IF p_event_ids IS NULL THEN
    -- The channel's transactions newest first (orders_report_idx), stopping at the limit. D28:
    -- without filters only completed orders (the literal IN keeps the partial index usable).
    RETURN QUERY EXECUTE $q$
      SELECT o.id, o.reference, o.type, o.status, o.created_at, o.customer_id, o.payment_method, o.currency,
             o.base_amount, o.discount_amount, o.fee_amount, o.total_amount, COALESCE(o.refunded_order_id, o.id)
      FROM orders o
      WHERE o.channel_id = $1 AND o.status IN ('completed', 'cancelled') AND ($4 OR o.status = 'completed')
        AND o.created_at >= $2 AND o.created_at < $3
      ORDER BY o.created_at DESC, o.id DESC
      LIMIT $5$q$
    USING p_channel_id, COALESCE(p_from, '-infinity'), COALESCE(p_to, 'infinity'), p_include_cancelled, p_limit;
  ELSE
    -- Event filter: per event, the channel's transactions of that event newest first from
    -- order_events (0041), each checked against its orders row (status, channel, dates), at most
    -- p_limit per event; then the union without duplicates (an order of two of the events) and
    -- the newest p_limit of it.
    RETURN QUERY EXECUTE $q$
      SELECT DISTINCT ON (m.created_at, m.id) m.*
      FROM unnest($6::integer[]) AS ev(id)
      CROSS JOIN LATERAL (
        SELECT o.id, o.reference, o.type, o.status, o.created_at, o.customer_id, o.payment_method, o.currency,
               o.base_amount, o.discount_amount, o.fee_amount, o.total_amount, COALESCE(o.refunded_order_id, o.id)
        FROM order_events oe JOIN orders o ON o.id = oe.order_id
        WHERE oe.channel_id = $1 AND oe.event_id = ev.id AND oe.created_at >= $2 AND oe.created_at < $3
          AND o.channel_id = $1 AND o.status IN ('completed', 'cancelled') AND ($4 OR o.status = 'completed')
          AND o.created_at >= $2 AND o.created_at < $3
        ORDER BY oe.created_at DESC, oe.order_id DESC
        LIMIT $5) m
      ORDER BY m.created_at DESC, m.id DESC
      LIMIT $5$q$
    USING p_channel_id, COALESCE(p_from, '-infinity'), COALESCE(p_to, 'infinity'), p_include_cancelled, p_limit,
          p_event_ids;
  END IF;
END;
$$;

-- D59 and D74: a session is sold only while it is on sale: its status is on_sale, its event is
-- published, it has not started, and p_now is inside its sales window when it has one
-- (sales_start_at inclusive, sales_end_at exclusive). An unknown session is not on sale.
--
-- The one definition of "on sale": every cart write (cart_hold_seat, the service's full path in
-- orders.repo.ts), the closing (close_order) and the catalogue's sale_state call it. Kept apart from
-- those functions so that they can be reworked without touching the rule. STABLE (it reads the
-- session and the event); the caller decides the locking (close_order takes the sessions' sale
-- locks first, lock_session_sale, so that a confirm and a cancellation are serialised).
-- plpgsql rather than sql: the body has a subquery, so PostgreSQL does not inline it, and a
-- non-inlined SQL function is planned again on every call (a hold calls it per seat); plpgsql
-- keeps the plan per connection (track_functions on bench:flash: the most called function of a
-- purchase).
CREATE OR REPLACE FUNCTION session_is_on_sale(p_session_id integer, p_now timestamptz) RETURNS boolean
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN COALESCE((
    SELECT se.status = 'on_sale' AND e.status = 'published' AND se.start_datetime > p_now
           AND (se.sales_start_at IS NULL OR se.sales_start_at <= p_now)
           AND (se.sales_end_at IS NULL OR p_now < se.sales_end_at)
    FROM sessions se JOIN events e ON e.id = se.event_id
    WHERE se.id = p_session_id), false);
END;
$$;

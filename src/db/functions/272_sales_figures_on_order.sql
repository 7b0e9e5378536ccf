-- Trigger of orders (migration 0270): an order that starts or stops counting in the sales overview
-- (status completed, type purchase or reservation), or a counted order whose channel or completion
-- time changes, moves its items' figures. Completing an order (close_order, reservations) is the
-- only such change on the purchase path: one upsert per (session, rate, sector) of its items and
-- one per session into the hourly figures. BEFORE DELETE: the items are still there to subtract
-- (ON DELETE CASCADE removes them afterwards, and the items' trigger then finds no order).
CREATE OR REPLACE FUNCTION sales_figures_on_order() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status = 'completed' AND OLD.type IN ('purchase', 'reservation') THEN
    PERFORM sales_figures_add(sales_figures_of_order(OLD.id, OLD.channel_id, OLD.completed_at, -1));
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.status = 'completed' AND NEW.type IN ('purchase', 'reservation') THEN
    PERFORM sales_figures_add(sales_figures_of_order(NEW.id, NEW.channel_id, NEW.completed_at, 1));
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NULL;
END;
$$;

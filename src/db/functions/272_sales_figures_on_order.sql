-- Trigger of orders (migrations 0270, 0341): a counted order (status completed, type purchase or
-- reservation) whose status, type, channel or completion time changes moves its items' figures:
-- out as it counted, in as it counts now (sales_figures_add_order, with what the items' refunds
-- gave back). An order becomes completed only in complete_order, which adds its figures itself;
-- so the update trigger follows orders that were completed already (WHEN OLD.status =
-- 'completed', a short condition: PostgreSQL reads a trigger's WHEN again for every statement
-- that updates one of its columns, and the closing's own update is one). An order inserted
-- completed (a refund: not counted) and one deleted are followed too. An order still marked
-- `figures_pending` (migration 0342) is not in the kept rows yet: it moves nothing, and
-- sales_figures_apply_pending adds it as it is when it comes to it.
-- BEFORE DELETE: the items are still there to subtract (ON DELETE CASCADE removes them afterwards,
-- and the items' trigger then finds no order).
CREATE OR REPLACE FUNCTION sales_figures_on_order() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (OLD.status, OLD.type, OLD.channel_id, OLD.completed_at)
                          IS NOT DISTINCT FROM (NEW.status, NEW.type, NEW.channel_id, NEW.completed_at) THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status = 'completed' AND OLD.type IN ('purchase', 'reservation')
     AND NOT OLD.figures_pending THEN
    PERFORM sales_figures_add_order(OLD.id, OLD.channel_id, OLD.completed_at, -1);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.status = 'completed' AND NEW.type IN ('purchase', 'reservation')
     AND NOT NEW.figures_pending THEN
    PERFORM sales_figures_add_order(NEW.id, NEW.channel_id, NEW.completed_at, 1);
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NULL;
END;
$$;

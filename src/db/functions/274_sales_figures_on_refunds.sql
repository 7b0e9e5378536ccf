-- Statement triggers of refund_items (migration 0270): a refunded item of a counted order moves
-- from tickets to refunded_tickets and adds what the refund gave back (its negative total) to
-- refund_amount; one upsert per affected group. The hourly figures do not change. An order marked
-- `figures_pending` is not in the kept rows yet (sales_figures_apply_pending reads its refunds then).
CREATE OR REPLACE FUNCTION sales_figures_on_refunds() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM sales_figures_add(ARRAY(
      SELECT ROW(i.session_id, o.channel_id, i.rate_id, i.sector_id, NULL, 0, -1, 0, 0, 0, 0, ri.total_amount)::sales_figures_delta
      FROM old_refunds ri
      JOIN order_items i ON i.id = ri.order_item_id
      JOIN orders o ON o.id = i.order_id AND o.status = 'completed' AND o.type IN ('purchase', 'reservation') AND NOT o.figures_pending));
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    PERFORM sales_figures_add(ARRAY(
      SELECT ROW(i.session_id, o.channel_id, i.rate_id, i.sector_id, NULL, 0, 1, 0, 0, 0, 0, -ri.total_amount)::sales_figures_delta
      FROM new_refunds ri
      JOIN order_items i ON i.id = ri.order_item_id
      JOIN orders o ON o.id = i.order_id AND o.status = 'completed' AND o.type IN ('purchase', 'reservation') AND NOT o.figures_pending));
  END IF;
  RETURN NULL;
END;
$$;

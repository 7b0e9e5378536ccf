-- What an order's outcome writes, run by the deferred triggers order_outcome_on_insert and
-- order_outcome_on_status (migration 0352) at the commit of the transaction that completed,
-- cancelled or expired an order or inserted a refund (inserted completed): every path that changes
-- an order's outcome writes both without having to remember to.
--
-- 1. The report's event index (order_events, migration 0041; docs/reports.md) when the order
--    becomes completed or cancelled: one row per event of its items. A refund takes the events of
--    the order it refunds.
-- 2. The order event of the outbox (D51; migration 0090). The event's time is the order's
--    updated_at, which the application sets from its clock. A refund reports the order it refunds
--    (its view, as the buyer knows it) with the refund's reference, amounts and the tickets it
--    covered.
--
-- One trigger function for both (it was two, each with its trigger): a closing paid for a second
-- deferred trigger's queueing, WHEN and call (0.044 M instructions per purchase under callgrind,
-- docs/operations.md). The triggers fire for every status but pending; expired writes no report row.
CREATE OR REPLACE FUNCTION order_outcome() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status <> 'expired' THEN
    INSERT INTO order_events (channel_id, event_id, created_at, order_id)
    SELECT DISTINCT NEW.channel_id, i.event_id, NEW.created_at, NEW.id
    FROM order_items i
    WHERE i.order_id = COALESCE(NEW.refunded_order_id, NEW.id)
    ON CONFLICT DO NOTHING;
  END IF;
  IF NEW.type = 'refund' THEN
    IF NEW.refunded_order_id IS NOT NULL THEN
      PERFORM webhook_enqueue(NEW.channel_id, 'order.refunded', NEW.updated_at, NULL, NEW.refunded_order_id, NEW.lang,
        json_build_object('refund', json_build_object(
          'reference', NEW.reference, 'total_amount', NEW.total_amount, 'fee_amount', NEW.fee_amount,
          -- The refunded tickets (D58): a refund may cover some of the order's tickets only.
          'tickets', COALESCE((
            SELECT json_agg(json_build_object('ticket_id', ri.ticket_id, 'item_id', ri.order_item_id,
                                              'session_seat_id', i.session_seat_id, 'total_amount', ri.total_amount)
                            ORDER BY ri.order_item_id)
            FROM refund_items ri JOIN order_items i ON i.id = ri.order_item_id
            WHERE ri.refund_order_id = NEW.id), '[]'::json))));
    END IF;
  ELSE
    PERFORM webhook_enqueue(NEW.channel_id, 'order.' || NEW.status, NEW.updated_at, NULL, NEW.id, NEW.lang, NULL);
  END IF;
  RETURN NULL;
END;
$$;

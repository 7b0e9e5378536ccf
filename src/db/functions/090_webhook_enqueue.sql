-- The outbox (D51, migration 0090): records one event of a channel and one delivery per enabled
-- endpoint of the channel subscribed to its type at this moment, due at p_at. Nothing is written
-- when no endpoint subscribes, so a channel without webhooks pays one index probe. Call it inside
-- the transaction of the change the event reports: the event commits or rolls back with it.
-- p_data is the body's data as is; or p_order_id names an order whose rows (order_rows_json) are
-- kept as they are now, for the worker to render as the D35 view in p_lang with p_extra merged in.
-- Returns the event id, or null when nothing subscribes.
CREATE OR REPLACE FUNCTION webhook_enqueue(
  p_channel_id integer, p_type text, p_at timestamptz, p_data json, p_order_id bigint, p_lang text, p_extra json
) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_endpoints integer[];
  v_event bigint;
BEGIN
  SELECT array_agg(e.id ORDER BY e.id) INTO v_endpoints FROM webhook_endpoints e
  WHERE e.channel_id = p_channel_id AND e.enabled AND p_type = ANY(e.event_types);
  IF v_endpoints IS NULL THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_events (message_id, channel_id, type, created_at, data, order_rows, extra, lang)
  VALUES ('msg_' || replace(gen_random_uuid()::text, '-', ''), p_channel_id, p_type, p_at, p_data,
          CASE WHEN p_order_id IS NOT NULL THEN order_rows_json(p_order_id) END, p_extra, p_lang)
  RETURNING id INTO v_event;
  INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at)
  SELECT v_event, unnest(v_endpoints), p_at;
  RETURN v_event;
END;
$$;

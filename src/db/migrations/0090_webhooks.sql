-- Signed webhooks (D51, docs/webhooks.md): endpoints per channel, a durable outbox of events, one
-- delivery per (event, endpoint) and a log of every attempt.
--
-- The outbox is written by the database itself: deferred triggers on orders call webhook_enqueue
-- when an order becomes completed, cancelled or expired, or a refund row is inserted, at the commit
-- of the transaction that made the change (so a rolled-back change writes nothing, and every path
-- that closes an order -- confirm, card payment, reservation, cancel, the sweep, refund -- is
-- covered without each remembering to). Other events (ticket.checked_in) call webhook_enqueue
-- through enqueueWebhookEvent (src/modules/webhooks/webhooks.outbox.ts) inside their transaction.
-- The current bodies of webhook_enqueue and webhook_order_event live in src/db/functions (090, 091);
-- the trigger function is created here as a placeholder only because CREATE TRIGGER needs it to exist.

CREATE TABLE webhook_endpoints (
  id serial PRIMARY KEY,
  channel_id integer NOT NULL REFERENCES sales_channels(id) ON DELETE CASCADE,
  url text NOT NULL,
  description text NOT NULL DEFAULT '',
  event_types text[] NOT NULL CHECK (cardinality(event_types) > 0),
  -- whsec_<base64>, encrypted with the deployment's SIGNING_SECRET (src/lib/secrets.ts sealSecret):
  -- the worker needs the secret itself to sign, so it cannot be a hash.
  secret_sealed text NOT NULL,
  -- After a rotation the previous secret also signs until previous_until (Standard Webhooks sends
  -- several signatures), so that a receiver can switch without losing an event.
  previous_secret_sealed text,
  previous_until timestamptz,
  enabled boolean NOT NULL DEFAULT true,
  -- Why it was disabled: 'manual' or 'gone' (the endpoint answered 410).
  disabled_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_channel_idx ON webhook_endpoints (channel_id);

CREATE TABLE webhook_events (
  id bigserial PRIMARY KEY,
  -- The webhook-id header: one per event, kept across retries and redeliveries (dedupe key).
  message_id text NOT NULL UNIQUE,
  channel_id integer NOT NULL,
  type text NOT NULL,
  created_at timestamptz NOT NULL,
  -- What the body's data is made of: either data itself (a ticket), or the order's rows as they
  -- were in the transaction (order_rows_json), which the worker turns into the D35 view in lang.
  data json,
  order_rows json,
  extra json,
  lang text,
  -- The body, rendered once at the first attempt and sent unchanged by every later one.
  payload text
);
CREATE INDEX webhook_events_channel_idx ON webhook_events (channel_id, id);
-- The retention sweep deletes by age.
CREATE INDEX webhook_events_created_at_idx ON webhook_events (created_at);

CREATE TABLE webhook_deliveries (
  id bigserial PRIMARY KEY,
  event_id bigint NOT NULL REFERENCES webhook_events(id) ON DELETE CASCADE,
  -- No foreign key: its check would lock the endpoint's row (FOR KEY SHARE) in every closing
  -- transaction of the channel, all on one row (docs/architecture.md "References from sales to the
  -- catalogue"). Deleting an endpoint deletes its deliveries (webhooks.repo.ts); the worker only
  -- claims deliveries whose endpoint exists and is enabled.
  endpoint_id integer NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  -- Scheduled attempts made so far (manual redeliveries are not counted: they do not move the schedule).
  attempts integer NOT NULL DEFAULT 0,
  -- When a worker may take it next: due time, or the end of a worker's lease while it sends.
  next_attempt_at timestamptz,
  -- Random per claim: only the worker holding the lease records the scheduled outcome.
  lease text,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id);

CREATE TABLE webhook_attempts (
  id bigserial PRIMARY KEY,
  delivery_id bigint NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempted_at timestamptz NOT NULL,
  -- HTTP status, or null when no answer came (timeout, refused connection: see error).
  status_code integer,
  duration_ms integer NOT NULL,
  response_excerpt text,
  error text,
  manual boolean NOT NULL DEFAULT false
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id);

CREATE FUNCTION webhook_order_event() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END; $$;

CREATE CONSTRAINT TRIGGER webhook_order_on_status AFTER UPDATE OF status ON orders
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.status IN ('completed', 'cancelled', 'expired') AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION webhook_order_event();
CREATE CONSTRAINT TRIGGER webhook_order_on_insert AFTER INSERT ON orders
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.status IN ('completed', 'cancelled', 'expired'))
  EXECUTE FUNCTION webhook_order_event();

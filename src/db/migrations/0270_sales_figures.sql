-- History only for the functions: their CURRENT bodies are one file each under src/db/functions
-- (270_sales_figures_add.sql .. 275_sales_figures_rebuild.sql), re-applied after the migrations on
-- every start. They are defined here in full because the backfill below and every write after this
-- migration need them before that.

-- The sales overview's kept figures (issue 30, D66; docs/reports.md "Sales overview"). The overview
-- of an event with 100,000 orders read every sold item (p50 1.5 s on bench:report); it now reads
-- these rows, a few per (session, channel, rate, sector) and per (session, hour), kept exact by
-- triggers in the transactions that change orders, order_items and refund_items.
--
-- A sold item counts when its order is completed and a purchase or a reservation (a refund is its
-- own order row, type refund, and reaches the figures through refund_items). `slot` spreads the
-- rows of one group over 8 rows, by the writing backend: concurrent purchases of one session,
-- channel, rate and sector do not queue on one row lock until they commit. Readers sum the slots.
CREATE TABLE sales_figures (
  session_id integer NOT NULL,
  channel_id integer NOT NULL,
  rate_id integer NOT NULL,
  sector_id integer NOT NULL,
  slot smallint NOT NULL,
  -- Sold items, refunded ones included (tickets = items - refunded).
  items integer NOT NULL,
  refunded integer NOT NULL,
  base_amount bigint NOT NULL,
  discount_amount bigint NOT NULL,
  fee_amount bigint NOT NULL,
  -- What buyers paid (gross).
  total_amount bigint NOT NULL,
  -- What refunds gave back, positive.
  refund_amount bigint NOT NULL,
  PRIMARY KEY (session_id, channel_id, rate_id, sector_id, slot)
);

-- Sales over time: sold items (refunded ones included) and what was paid, per session and hour of
-- completion in UTC (an hour of UTC is within one hour and one day of any zone whose offset is a
-- whole number of hours; the overview recomputes the timeline from the items for other zones).
CREATE TABLE sales_figures_hourly (
  session_id integer NOT NULL,
  hour timestamptz NOT NULL,
  slot smallint NOT NULL,
  items integer NOT NULL,
  total_amount bigint NOT NULL,
  PRIMARY KEY (session_id, hour, slot)
);

-- One item's (or one refund item's) signed contribution, as the triggers pass it to sales_figures_add.
CREATE TYPE sales_figures_delta AS (
  session_id integer, channel_id integer, rate_id integer, sector_id integer, hour timestamptz,
  items integer, refunded integer, base_amount integer, discount_amount integer, fee_amount integer,
  total_amount integer, refund_amount integer
);

-- The sales overview's kept figures (D66, migration 0270, docs/reports.md "Sales overview"): adds
-- signed per-item deltas to sales_figures (per session, channel, rate and sector) and
-- sales_figures_hourly (per session and UTC hour of completion). One upsert per affected group and
-- table, in key order (two transactions touching the same groups lock them in the same order: no
-- deadlock), into the slot of this backend: concurrent writers on different backends mostly touch
-- different rows, so they do not queue on one row lock until commit. Readers sum the slots.
-- An increment under ON CONFLICT DO UPDATE re-reads the row's latest committed version under its
-- lock, so concurrent writers never lose each other's counts.
CREATE OR REPLACE FUNCTION sales_figures_add(p_deltas sales_figures_delta[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_slot smallint := (pg_backend_pid() % 8)::smallint;
BEGIN
  IF COALESCE(cardinality(p_deltas), 0) = 0 THEN
    RETURN;
  END IF;
  INSERT INTO sales_figures AS f (session_id, channel_id, rate_id, sector_id, slot, items, refunded,
                                  base_amount, discount_amount, fee_amount, total_amount, refund_amount)
  SELECT d.session_id, d.channel_id, d.rate_id, d.sector_id, v_slot, sum(d.items), sum(d.refunded),
         sum(d.base_amount), sum(d.discount_amount), sum(d.fee_amount), sum(d.total_amount), sum(d.refund_amount)
  FROM unnest(p_deltas) d
  GROUP BY d.session_id, d.channel_id, d.rate_id, d.sector_id
  ORDER BY d.session_id, d.channel_id, d.rate_id, d.sector_id
  ON CONFLICT (session_id, channel_id, rate_id, sector_id, slot) DO UPDATE
    SET items = f.items + EXCLUDED.items, refunded = f.refunded + EXCLUDED.refunded,
        base_amount = f.base_amount + EXCLUDED.base_amount, discount_amount = f.discount_amount + EXCLUDED.discount_amount,
        fee_amount = f.fee_amount + EXCLUDED.fee_amount, total_amount = f.total_amount + EXCLUDED.total_amount,
        refund_amount = f.refund_amount + EXCLUDED.refund_amount;
  -- A refund changes no hourly figure (the timeline counts what was sold, when): no write then.
  INSERT INTO sales_figures_hourly AS h (session_id, hour, slot, items, total_amount)
  SELECT d.session_id, d.hour, v_slot, sum(d.items), sum(d.total_amount)
  FROM unnest(p_deltas) d
  WHERE d.hour IS NOT NULL AND d.items <> 0
  GROUP BY d.session_id, d.hour
  ORDER BY d.session_id, d.hour
  ON CONFLICT (session_id, hour, slot) DO UPDATE
    SET items = h.items + EXCLUDED.items, total_amount = h.total_amount + EXCLUDED.total_amount;
END;
$$;

-- Trigger of orders (migration 0270): an order that starts or stops counting in the sales overview
-- (status completed, type purchase or reservation), or a counted order whose channel or completion
-- time changes, moves its items' figures: one delta per item, with what its refund gave back.
-- Completing an order (close_order, reservations) is the only such change on the purchase path:
-- one upsert per (session, rate, sector) of its items and one per session into the hourly
-- figures. The queries are written here, not in an SQL function: PL/pgSQL keeps their plans
-- (an SQL function returning an array is planned again on every call, about 1 ms).
-- BEFORE DELETE: the items are still there to subtract (ON DELETE CASCADE removes them afterwards,
-- and the items' trigger then finds no order).
CREATE OR REPLACE FUNCTION sales_figures_on_order() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_deltas sales_figures_delta[];
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.status = 'completed' AND OLD.type IN ('purchase', 'reservation') THEN
    v_deltas := ARRAY(
      SELECT ROW(i.session_id, OLD.channel_id, i.rate_id, i.sector_id,
                 date_trunc('hour', OLD.completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
                 -1, -(ri.order_item_id IS NOT NULL)::int, -i.base_amount, -i.discount_amount, -i.fee_amount,
                 -i.total_amount, COALESCE(ri.total_amount, 0))::sales_figures_delta
      FROM order_items i LEFT JOIN refund_items ri ON ri.order_item_id = i.id
      WHERE i.order_id = OLD.id);
    PERFORM sales_figures_add(v_deltas);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.status = 'completed' AND NEW.type IN ('purchase', 'reservation') THEN
    v_deltas := ARRAY(
      SELECT ROW(i.session_id, NEW.channel_id, i.rate_id, i.sector_id,
                 date_trunc('hour', NEW.completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
                 1, (ri.order_item_id IS NOT NULL)::int, i.base_amount, i.discount_amount, i.fee_amount,
                 i.total_amount, COALESCE(-ri.total_amount, 0))::sales_figures_delta
      FROM order_items i LEFT JOIN refund_items ri ON ri.order_item_id = i.id
      WHERE i.order_id = NEW.id);
    PERFORM sales_figures_add(v_deltas);
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NULL;
END;
$$;

-- Statement triggers of order_items (migration 0270): items inserted, changed or deleted while
-- their order counts in the sales overview move the figures. Items normally change only while
-- their order is a cart (then the join below finds no counted order and nothing is written); this
-- keeps the figures exact for any other write too. Transition tables: one call per statement.
CREATE OR REPLACE FUNCTION sales_figures_on_items() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_deltas sales_figures_delta[];
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    v_deltas := ARRAY(
      SELECT ROW(i.session_id, o.channel_id, i.rate_id, i.sector_id,
                 date_trunc('hour', o.completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
                 -1, -(ri.order_item_id IS NOT NULL)::int, -i.base_amount, -i.discount_amount, -i.fee_amount,
                 -i.total_amount, COALESCE(ri.total_amount, 0))::sales_figures_delta
      FROM old_items i
      JOIN orders o ON o.id = i.order_id AND o.status = 'completed' AND o.type IN ('purchase', 'reservation')
      LEFT JOIN refund_items ri ON ri.order_item_id = i.id);
    -- A cart's items (the purchase path) give no delta: no call.
    IF cardinality(v_deltas) > 0 THEN
      PERFORM sales_figures_add(v_deltas);
    END IF;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    v_deltas := ARRAY(
      SELECT ROW(i.session_id, o.channel_id, i.rate_id, i.sector_id,
                 date_trunc('hour', o.completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
                 1, (ri.order_item_id IS NOT NULL)::int, i.base_amount, i.discount_amount, i.fee_amount,
                 i.total_amount, COALESCE(-ri.total_amount, 0))::sales_figures_delta
      FROM new_items i
      JOIN orders o ON o.id = i.order_id AND o.status = 'completed' AND o.type IN ('purchase', 'reservation')
      LEFT JOIN refund_items ri ON ri.order_item_id = i.id);
    -- A cart's items (the purchase path) give no delta: no call.
    IF cardinality(v_deltas) > 0 THEN
      PERFORM sales_figures_add(v_deltas);
    END IF;
  END IF;
  RETURN NULL;
END;
$$;

-- Statement triggers of refund_items (migration 0270): a refunded item of a counted order moves
-- from tickets to refunded_tickets and adds what the refund gave back (its negative total) to
-- refund_amount; one upsert per affected group. The hourly figures do not change.
CREATE OR REPLACE FUNCTION sales_figures_on_refunds() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM sales_figures_add(ARRAY(
      SELECT ROW(i.session_id, o.channel_id, i.rate_id, i.sector_id, NULL, 0, -1, 0, 0, 0, 0, ri.total_amount)::sales_figures_delta
      FROM old_refunds ri
      JOIN order_items i ON i.id = ri.order_item_id
      JOIN orders o ON o.id = i.order_id AND o.status = 'completed' AND o.type IN ('purchase', 'reservation')));
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    PERFORM sales_figures_add(ARRAY(
      SELECT ROW(i.session_id, o.channel_id, i.rate_id, i.sector_id, NULL, 0, 1, 0, 0, 0, 0, -ri.total_amount)::sales_figures_delta
      FROM new_refunds ri
      JOIN order_items i ON i.id = ri.order_item_id
      JOIN orders o ON o.id = i.order_id AND o.status = 'completed' AND o.type IN ('purchase', 'reservation')));
  END IF;
  RETURN NULL;
END;
$$;

-- The sales overview's kept figures recomputed from the base tables (orders, order_items,
-- refund_items), all in slot 0: the backfill of migration 0270, and the repair after a bulk load
-- that bypassed the triggers (bench/report.bench.ts loads with session_replication_role = replica)
-- or a restore with triggers disabled. The lock keeps writers out while it reads, so no change
-- falls between the delete and the recomputation. Returns the number of rows written.
CREATE OR REPLACE FUNCTION sales_figures_rebuild() RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v_rows bigint;
  v_hourly bigint;
BEGIN
  LOCK TABLE orders, order_items, refund_items IN SHARE MODE;
  DELETE FROM sales_figures;
  DELETE FROM sales_figures_hourly;
  INSERT INTO sales_figures (session_id, channel_id, rate_id, sector_id, slot, items, refunded,
                             base_amount, discount_amount, fee_amount, total_amount, refund_amount)
  SELECT i.session_id, o.channel_id, i.rate_id, i.sector_id, 0, count(*), count(ri.order_item_id),
         sum(i.base_amount), sum(i.discount_amount), sum(i.fee_amount), sum(i.total_amount), COALESCE(sum(-ri.total_amount), 0)
  FROM order_items i
  JOIN orders o ON o.id = i.order_id AND o.status = 'completed' AND o.type IN ('purchase', 'reservation')
  LEFT JOIN refund_items ri ON ri.order_item_id = i.id
  GROUP BY i.session_id, o.channel_id, i.rate_id, i.sector_id;
  GET DIAGNOSTICS v_rows = ROW_COUNT;
  INSERT INTO sales_figures_hourly (session_id, hour, slot, items, total_amount)
  SELECT i.session_id, date_trunc('hour', o.completed_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', 0, count(*), sum(i.total_amount)
  FROM order_items i
  JOIN orders o ON o.id = i.order_id AND o.status = 'completed' AND o.type IN ('purchase', 'reservation')
  WHERE o.completed_at IS NOT NULL
  GROUP BY 1, 2;
  GET DIAGNOSTICS v_hourly = ROW_COUNT;
  RETURN v_rows + v_hourly;
END;
$$;

-- Orders: only the transitions that change what counts (the WHEN clause is evaluated without
-- calling the function: a cart's writes, the expiry sweep and cancellations never run it).
CREATE TRIGGER sales_figures_order_update AFTER UPDATE OF status, type, channel_id, completed_at ON orders
  FOR EACH ROW
  WHEN (((OLD.status = 'completed' AND OLD.type IN ('purchase', 'reservation'))
         OR (NEW.status = 'completed' AND NEW.type IN ('purchase', 'reservation')))
        AND (OLD.status, OLD.type, OLD.channel_id, OLD.completed_at) IS DISTINCT FROM (NEW.status, NEW.type, NEW.channel_id, NEW.completed_at))
  EXECUTE FUNCTION sales_figures_on_order();
CREATE TRIGGER sales_figures_order_insert AFTER INSERT ON orders
  FOR EACH ROW WHEN (NEW.status = 'completed' AND NEW.type IN ('purchase', 'reservation'))
  EXECUTE FUNCTION sales_figures_on_order();
CREATE TRIGGER sales_figures_order_delete BEFORE DELETE ON orders
  FOR EACH ROW WHEN (OLD.status = 'completed' AND OLD.type IN ('purchase', 'reservation'))
  EXECUTE FUNCTION sales_figures_on_order();

CREATE TRIGGER sales_figures_items_insert AFTER INSERT ON order_items
  REFERENCING NEW TABLE AS new_items FOR EACH STATEMENT EXECUTE FUNCTION sales_figures_on_items();
CREATE TRIGGER sales_figures_items_update AFTER UPDATE ON order_items
  REFERENCING OLD TABLE AS old_items NEW TABLE AS new_items FOR EACH STATEMENT EXECUTE FUNCTION sales_figures_on_items();
CREATE TRIGGER sales_figures_items_delete AFTER DELETE ON order_items
  REFERENCING OLD TABLE AS old_items FOR EACH STATEMENT EXECUTE FUNCTION sales_figures_on_items();

CREATE TRIGGER sales_figures_refunds_insert AFTER INSERT ON refund_items
  REFERENCING NEW TABLE AS new_refunds FOR EACH STATEMENT EXECUTE FUNCTION sales_figures_on_refunds();
CREATE TRIGGER sales_figures_refunds_update AFTER UPDATE ON refund_items
  REFERENCING OLD TABLE AS old_refunds NEW TABLE AS new_refunds FOR EACH STATEMENT EXECUTE FUNCTION sales_figures_on_refunds();
CREATE TRIGGER sales_figures_refunds_delete AFTER DELETE ON refund_items
  REFERENCING OLD TABLE AS old_refunds FOR EACH STATEMENT EXECUTE FUNCTION sales_figures_on_refunds();

-- Backfill. The triggers exist first, and CREATE TRIGGER holds locks on the three tables that
-- block their writes until this migration commits: no change falls between the two.
SELECT sales_figures_rebuild();

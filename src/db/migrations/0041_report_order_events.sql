-- History only: the functions this migration defines have their CURRENT body in one file each
-- under src/db/functions, re-applied after the migrations on every start (docs/architecture.md
-- "Migrations"). Here: order_events_write, order_events_backfill:
-- src/db/functions/060_order_events_write.sql, 061_order_events_backfill.sql.

-- Sales report, event filter (issue 5, bench:report). Which events each report transaction is about,
-- one row per (transaction, event), so that "the channel's transactions of event E, newest first"
-- is an index range read that stops at 500 rows instead of a probe of every order of the window.
--
-- A row is written once, when an order becomes a transaction (status completed or cancelled), in
-- the same transaction as that change, by the triggers below. Its events are the events of the
-- order's items; a refund's are those of the order it refunds (it has no items of its own), as in
-- the report's rows. What makes this complete (docs/reports.md "Event filter"):
--   * the items of an order only change while it is a cart (pending); completed and cancelled are
--     final (a refund is a new order row, the refunded order stays completed);
--   * an order's channel_id and created_at never change.
-- The report still reads every row's status, channel and date from orders, so a row here can only
-- ever be too many (then it is filtered out), never make a wrong row appear.
--
-- No foreign key to orders: it would add a referential check to every DELETE of orders, which the
-- cart hold path does when a seat is lost (0025), and transactions are never deleted.
CREATE TABLE order_events (
  channel_id integer NOT NULL,
  event_id integer NOT NULL,
  created_at timestamptz NOT NULL,
  order_id bigint NOT NULL,
  -- The report's read: one channel and event, a created_at range, newest first (scanned backwards).
  PRIMARY KEY (channel_id, event_id, created_at, order_id)
);

-- Rows of one order (a transaction). A refund takes the events of the order it refunds.
CREATE FUNCTION order_events_write() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO order_events (channel_id, event_id, created_at, order_id)
  SELECT DISTINCT NEW.channel_id, i.event_id, NEW.created_at, NEW.id
  FROM order_items i
  WHERE i.order_id = COALESCE(NEW.refunded_order_id, NEW.id)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END;
$$;

-- Only on the transition, and only then: the WHEN clauses are evaluated by the executor without
-- calling the function, so a cart's own writes never run it (an INSERT of a pending order; UPDATEs
-- that do not set status, which UPDATE OF status skips before looking at WHEN). Completing (closing,
-- reservations, the portal's late payment of an expired cart) and cancelling are UPDATEs of status;
-- a refund is INSERTed completed. Deferred to the commit of that transaction: the rows are written
-- from the order's items as they are when it commits, whatever order the statements came in.
CREATE CONSTRAINT TRIGGER order_events_on_status AFTER UPDATE OF status ON orders
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.status IN ('completed', 'cancelled') AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION order_events_write();
CREATE CONSTRAINT TRIGGER order_events_on_insert AFTER INSERT ON orders
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN (NEW.status IN ('completed', 'cancelled'))
  EXECUTE FUNCTION order_events_write();

-- Every transaction's rows, set-based; adds only what is missing. Used for the backfill below and
-- after a bulk load that bypassed the triggers (bench/report.bench.ts; a restore with triggers
-- disabled). Returns the number of rows added.
CREATE FUNCTION order_events_backfill() RETURNS bigint
LANGUAGE sql AS $$
  WITH added AS (
    INSERT INTO order_events (channel_id, event_id, created_at, order_id)
    SELECT DISTINCT o.channel_id, i.event_id, o.created_at, o.id
    FROM orders o
    JOIN order_items i ON i.order_id = COALESCE(o.refunded_order_id, o.id)
    WHERE o.status IN ('completed', 'cancelled')
    ON CONFLICT DO NOTHING
    RETURNING 1)
  SELECT count(*) FROM added;
$$;

-- The triggers exist before the backfill and CREATE TRIGGER holds a lock on orders that blocks
-- writes until this migration commits: no transition can fall between the two.
SELECT order_events_backfill();

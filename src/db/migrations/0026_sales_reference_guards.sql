-- History only: the functions this migration defines have their CURRENT body in one file each
-- under src/db/functions, re-applied after the migrations on every start (docs/architecture.md
-- "Migrations"). Here: refuse_delete_if_referenced:
-- src/db/functions/050_refuse_delete_if_referenced.sql.

-- Flash-sale lock contention (issue 3, bench:holds): every foreign key check takes a FOR KEY SHARE
-- lock on the referenced row. The cart's references to catalogue rows (an item's event, session,
-- sector and rate; an order's channel) point at the SAME few rows for every buyer of a sale, so
-- each hold wrote a lock on them (WAL, a MultiXact once two buyers overlap) and the buyers queued
-- on those rows' pages. Those rows are never deleted by the application (it retires them by
-- status), so the foreign keys only guarded against a hand-written DELETE. The guard stays, as a
-- delete trigger on the referenced table that costs nothing when selling:
--   * events, sessions and sectors are already guarded transitively: order_items.session_seat_id
--     keeps its foreign key, and a session's inventory rows (ON DELETE CASCADE from sessions and
--     events) and a sector's (no cascade) cannot go while an item names them;
--   * rates and sales_channels get refuse_delete_if_referenced() below.
ALTER TABLE order_items
  DROP CONSTRAINT order_items_event_id_fkey,
  DROP CONSTRAINT order_items_session_id_fkey,
  DROP CONSTRAINT order_items_sector_id_fkey,
  DROP CONSTRAINT order_items_rate_id_fkey;
ALTER TABLE orders DROP CONSTRAINT orders_channel_id_fkey;

-- BEFORE DELETE guard: TG_ARGV[0] is the referencing table, TG_ARGV[1] its column. The SHARE lock
-- waits for transactions still inserting into that table and holds new ones off until this one
-- ends, so a row cannot be deleted while an uncommitted sale starts to reference it (what the
-- foreign key's row lock did). Deletes of these rows are rare operator actions.
CREATE FUNCTION refuse_delete_if_referenced() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_found boolean;
BEGIN
  EXECUTE format('LOCK TABLE %I IN SHARE MODE', TG_ARGV[0]);
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE %I = $1)', TG_ARGV[0], TG_ARGV[1]) INTO v_found USING OLD.id;
  IF v_found THEN
    RAISE EXCEPTION 'update or delete on table "%" violates the sales guard: % still references id %', TG_TABLE_NAME, TG_ARGV[0], OLD.id
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN OLD;
END;
$$;

CREATE TRIGGER rates_sold_guard BEFORE DELETE ON rates
  FOR EACH ROW EXECUTE FUNCTION refuse_delete_if_referenced('order_items', 'rate_id');
CREATE TRIGGER sales_channels_orders_guard BEFORE DELETE ON sales_channels
  FOR EACH ROW EXECUTE FUNCTION refuse_delete_if_referenced('orders', 'channel_id');

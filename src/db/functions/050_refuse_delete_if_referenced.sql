-- BEFORE DELETE guard of rows that sales reference without a foreign key (migration 0026 dropped
-- those keys to spare the hold path their row locks; its triggers rates_sold_guard and
-- sales_channels_orders_guard call this). TG_ARGV[0] is the referencing table, TG_ARGV[1] its
-- column. The SHARE lock waits for transactions still inserting into that table and holds new ones
-- off until this one ends, so a row cannot be deleted while an uncommitted sale starts to reference
-- it (what the foreign key's row lock did). Deletes of these rows are rare operator actions.
CREATE OR REPLACE FUNCTION refuse_delete_if_referenced() RETURNS trigger
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

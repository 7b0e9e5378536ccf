-- tickets_mark_insert (0353) skipped the trigger when `NEW.change_xid <> txid_current()` was NULL,
-- that is for an insert that writes change_xid NULL on purpose: such a row then failed NOT NULL
-- instead of being marked. IS DISTINCT FROM marks it like any other insert without its marks.
DROP TRIGGER tickets_mark_insert ON tickets;
CREATE TRIGGER tickets_mark_insert BEFORE INSERT ON tickets
  FOR EACH ROW WHEN (NEW.change_xid IS DISTINCT FROM txid_current() OR NEW.signing_kid IS NULL) EXECUTE FUNCTION tickets_mark_change();

-- Issue 27: a new ticket's marks (tickets_mark_change: the transaction that wrote it, the check-in
-- list's cursor; the active signing key, D53) without a PL/pgSQL call per ticket when the insert
-- already gives them. complete_order (the one writer of tickets) gives both; the trigger still
-- runs for any insert that does not, or that gives another transaction's id, so every ticket is
-- still marked by the database. txid_current() is the value the function stores
-- (pg_current_xact_id()::text::bigint). Updates are marked as before, always.
-- -0.027 M instructions per two-seat purchase under callgrind (docs/operations.md).
DROP TRIGGER tickets_mark_change ON tickets;
CREATE TRIGGER tickets_mark_change BEFORE UPDATE ON tickets
  FOR EACH ROW EXECUTE FUNCTION tickets_mark_change();
CREATE TRIGGER tickets_mark_insert BEFORE INSERT ON tickets
  FOR EACH ROW WHEN (NEW.change_xid <> txid_current() OR NEW.signing_kid IS NULL) EXECUTE FUNCTION tickets_mark_change();

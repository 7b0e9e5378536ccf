-- A moved session updates its tickets' wallet passes (D70, D74; docs/wallet.md).
--
-- The trigger's body is in src/db/functions/241_sessions_mark_pass_update.sql (defined here because
-- the trigger needs it now; the files are applied after the migrations, next_pass_update among them).
CREATE OR REPLACE FUNCTION sessions_mark_pass_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RETURN NULL;
END;
$$;
CREATE TRIGGER sessions_mark_pass_update AFTER UPDATE OF start_datetime, end_datetime ON sessions
  FOR EACH ROW
  WHEN (OLD.start_datetime IS DISTINCT FROM NEW.start_datetime OR OLD.end_datetime IS DISTINCT FROM NEW.end_datetime)
  EXECUTE FUNCTION sessions_mark_pass_update();

-- A Google Wallet object's class (one per session) carries the session's time: what the class
-- showed when the object was saved or last synced, so that the sync PATCHes the class when the
-- session has moved since (null: not known, patched at the next sync).
ALTER TABLE google_wallet_objects ADD COLUMN class_start timestamptz, ADD COLUMN class_end timestamptz;

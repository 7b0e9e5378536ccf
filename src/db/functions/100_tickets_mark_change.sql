-- Trigger of tickets (migration 0100): stamps the transaction that changed a row (the list download's
-- cursor, docs/checkin.md) and gives a new ticket the active signing key (D53). Run for every update
-- (tickets_mark_change) and for an insert that does not already carry both (tickets_mark_insert,
-- migration 0353: complete_order gives them).
CREATE OR REPLACE FUNCTION tickets_mark_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.change_xid := pg_current_xact_id()::text::bigint;
  IF TG_OP = 'INSERT' AND NEW.signing_kid IS NULL THEN
    NEW.signing_kid := (SELECT kid FROM ticket_signing_keys WHERE retired_at IS NULL);
  END IF;
  RETURN NEW;
END;
$$;

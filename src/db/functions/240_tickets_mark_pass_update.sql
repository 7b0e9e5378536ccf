-- Trigger of tickets (migration 0240): a change the wallet pass shows (status, code, issue version)
-- moves pass_updated_at, the pass's Last-Modified for the Apple pass web service (D70), to a whole
-- second at least one second after its previous value (docs/wallet.md).
CREATE OR REPLACE FUNCTION tickets_mark_pass_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.pass_updated_at := GREATEST(
    date_trunc('second', clock_timestamp()) + interval '1 second',
    date_trunc('second', COALESCE(OLD.pass_updated_at, OLD.issued_at)) + interval '1 second');
  RETURN NEW;
END;
$$;

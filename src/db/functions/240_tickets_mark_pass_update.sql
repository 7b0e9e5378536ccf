-- Trigger of tickets (migration 0240): a change the wallet pass shows (status, code, issue version)
-- moves pass_updated_at, the pass's Last-Modified for the Apple pass web service (D70), by the rule
-- of next_pass_update (docs/wallet.md).
CREATE OR REPLACE FUNCTION tickets_mark_pass_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW.pass_updated_at := next_pass_update(COALESCE(OLD.pass_updated_at, OLD.issued_at));
  RETURN NEW;
END;
$$;

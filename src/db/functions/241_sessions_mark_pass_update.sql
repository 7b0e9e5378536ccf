-- Trigger of sessions (migration 0280): a session moved (its start or end) changes what every valid
-- ticket's wallet pass shows (D70, D74: tickets follow the new time), so their pass_updated_at moves
-- (next_pass_update): Apple devices are pushed and fetch the new pass, and Google objects are synced
-- with their class's new dateTime (google-wallet-sync.ts).
CREATE OR REPLACE FUNCTION sessions_mark_pass_update() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tickets t SET pass_updated_at = next_pass_update(COALESCE(t.pass_updated_at, t.issued_at))
  FROM order_items oi
  WHERE oi.id = t.order_item_id AND oi.session_id = NEW.id AND t.status = 'valid';
  RETURN NULL;
END;
$$;

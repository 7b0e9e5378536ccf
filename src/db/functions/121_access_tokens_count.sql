-- Keeps access_token_counts (migration 0130, D41): +1 for a token that becomes live, -1 for one
-- that stops being live (revoked or deleted). A deferred constraint trigger: it runs at the commit,
-- in the order of the changes; each transaction adds to one row of the channel and scope (its
-- transaction id picks it), so concurrent transactions rarely meet on a row and one transaction
-- never holds two of them.
CREATE OR REPLACE FUNCTION access_tokens_count() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_channel integer;
  v_scope text;
  v_delta integer;
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.revoked_at IS NOT NULL THEN RETURN NULL; END IF;
    v_channel := NEW.channel_id; v_scope := NEW.scope; v_delta := 1;
  ELSIF TG_OP = 'DELETE' THEN
    IF OLD.revoked_at IS NOT NULL THEN RETURN NULL; END IF;
    v_channel := OLD.channel_id; v_scope := OLD.scope; v_delta := -1;
  ELSE
    IF (OLD.revoked_at IS NULL) = (NEW.revoked_at IS NULL) THEN RETURN NULL; END IF;
    v_channel := NEW.channel_id; v_scope := NEW.scope;
    v_delta := CASE WHEN NEW.revoked_at IS NULL THEN 1 ELSE -1 END;
  END IF;
  INSERT INTO access_token_counts AS c (channel_id, scope, shard, live)
  VALUES (v_channel, v_scope, (txid_current() % 16)::smallint, v_delta)
  ON CONFLICT (channel_id, scope, shard) DO UPDATE SET live = c.live + EXCLUDED.live;
  RETURN NULL;
END;
$$;

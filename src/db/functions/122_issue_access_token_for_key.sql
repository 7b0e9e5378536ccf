-- A token request in one statement (issue 27): the key lookup of the token endpoint and
-- issue_access_token (120_issue_access_token.sql, which keeps every rule of the token) in one
-- round trip. The active keys of p_scope ('widget': widget_keys, 'server': server_keys) of the
-- channel with slug p_slug are all compared with the presented key's SHA-256 hex digest
-- (p_key_hash; the plain key never reaches the database). Each side is hashed again before the
-- comparison, so that how long the comparison takes says nothing about the stored digests, and
-- every candidate is compared (an aggregate reads them all, where SELECT INTO alone would stop at
-- the first match; key_hash is unique, so at most one matches): D6. No row when no active key matches
-- (unknown slug, revoked key, key of the other scope): the caller answers 401
-- invalid_credentials, whatever the reason. Otherwise one row: the channel and key, and the
-- hashes issue_access_token revoked.
--
-- Its commit is not waited for (issue_access_token sets synchronous_commit off for the calling
-- transaction, which is this one statement: auth.repo.ts issueTokenForKey).
CREATE OR REPLACE FUNCTION issue_access_token_for_key(
  p_slug text, p_scope text, p_key_hash text, p_client_id text,
  p_token_hash text, p_now timestamptz, p_expires_at timestamptz, p_cap integer,
  p_notify_channel text, p_per_notification integer,
  OUT channel_id integer, OUT key_id integer, OUT revoked text[]
) RETURNS SETOF record
-- At most one row: the planner joins it to sales_channels by its key, not by a scan of them all.
ROWS 1
LANGUAGE plpgsql AS $$
DECLARE
  v_presented bytea := sha256(convert_to(p_key_hash, 'UTF8'));
BEGIN
  IF p_scope = 'widget' THEN
    SELECT max(k.channel_id), max(k.id) INTO channel_id, key_id
    FROM sales_channels c JOIN widget_keys k ON k.channel_id = c.id AND k.revoked_at IS NULL
    WHERE c.slug = p_slug AND sha256(convert_to(k.key_hash, 'UTF8')) = v_presented;
  ELSIF p_scope = 'server' THEN
    SELECT max(k.channel_id), max(k.id) INTO channel_id, key_id
    FROM sales_channels c JOIN server_keys k ON k.channel_id = c.id AND k.revoked_at IS NULL
    WHERE c.slug = p_slug AND sha256(convert_to(k.key_hash, 'UTF8')) = v_presented;
  END IF;
  IF key_id IS NULL THEN
    RETURN;
  END IF;
  revoked := issue_access_token(
    channel_id, p_scope,
    CASE WHEN p_scope = 'widget' THEN key_id END, CASE WHEN p_scope = 'server' THEN key_id END,
    p_client_id, p_token_hash, p_now, p_expires_at, p_cap, p_notify_channel, p_per_notification);
  RETURN NEXT;
END;
$$;

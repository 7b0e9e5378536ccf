-- Token issuance in one round trip (issue 19, bench:flash): what issueToken
-- (src/modules/auth/auth.service.ts) did in five statements of one transaction, with the same rules:
-- the token group (channel, scope, client_id) is serialised by a transaction-scoped advisory lock
-- (the two-key form, as auth.repo.ts lockTokenGroup; cart_hold_seat uses the one-key form), the
-- group's live tokens are revoked (D38: one live token per client_id), the new token is inserted,
-- and the oldest live tokens of the channel and scope beyond p_cap are revoked (D41): how many
-- there are comes from access_token_counts (migration 0130), not from walking the live tokens, so
-- a channel at its cap pays for the tokens it revokes, not for the ones it keeps. Every revoked
-- hash is announced on p_notify_channel in the payload announceRevocation sends
-- (src/modules/auth/auth.revocations.ts: {"tokens": [...]}, at most p_per_notification hashes
-- each), so that other instances forget them when this commits. Returns the revoked hashes, for
-- the calling instance's own cache.
--
-- The token's commit is not waited for on disk (synchronous_commit off for the calling
-- transaction, which is one statement: issue_access_token_for_key, auth.repo.ts issueTokenForKey; do not call it
-- inside a transaction that writes anything else). A crash within the WAL writer's delay of the
-- commit forgets the token as if it had never been requested (and the revocations it made with
-- it); the client gets a 401 and renews it (SPEC Authentication 3). Any later durable commit
-- (the buyer's hold) writes the token to disk with it. docs/operations.md "Durable commits".
CREATE OR REPLACE FUNCTION issue_access_token(
  p_channel_id integer, p_scope text, p_widget_key_id integer, p_server_key_id integer, p_client_id text,
  p_token_hash text, p_now timestamptz, p_expires_at timestamptz, p_cap integer,
  p_notify_channel text, p_per_notification integer
) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
  v_revoked text[];
  v_beyond text[] := '{}';
  v_new_id bigint;
  v_live integer;
  i integer;
BEGIN
  SET LOCAL synchronous_commit = off;
  PERFORM pg_advisory_xact_lock(p_channel_id, hashtext(p_scope || ':' || p_client_id));
  -- The group's live token: only access_tokens_live_idx serves this predicate, whatever the
  -- statistics (migration 0160; test/auth/token-plan.test.ts).
  WITH previous AS (
    UPDATE access_tokens SET revoked_at = p_now
    WHERE channel_id = p_channel_id AND scope = p_scope AND client_id = p_client_id AND revoked_at IS NULL
    RETURNING token_hash)
  SELECT coalesce(array_agg(token_hash), '{}') INTO v_revoked FROM previous;
  INSERT INTO access_tokens (channel_id, scope, widget_key_id, server_key_id, client_id, token_hash, created_at, expires_at)
  VALUES (p_channel_id, p_scope, p_widget_key_id, p_server_key_id, p_client_id, p_token_hash, p_now, p_expires_at)
  RETURNING id INTO v_new_id;
  -- The live tokens once this commits: the committed count, plus this transaction's own changes,
  -- which the count's deferred trigger adds only at the commit. Concurrent requests may each see
  -- the count without the others' tokens; the next request evicts what they left beyond the cap.
  SELECT coalesce(sum(live), 0) + 1 - coalesce(array_length(v_revoked, 1), 0) INTO v_live
  FROM access_token_counts WHERE channel_id = p_channel_id AND scope = p_scope;
  -- Requests that see the channel beyond its cap at the same moment would each revoke what the
  -- count asks of them and together revoke live tokens below the cap. One at a time revokes (a
  -- lock per channel and scope, in the two-key form with a negative key so that no token group's
  -- lock is the same), and the one holding it counts again, so that it sees what the previous one
  -- revoked; the others go on without waiting and leave the surplus to a later request.
  IF v_live > p_cap AND pg_try_advisory_xact_lock(-p_channel_id, hashtext(p_scope)) THEN
    SELECT coalesce(sum(live), 0) + 1 - coalesce(array_length(v_revoked, 1), 0) INTO v_live
    FROM access_token_counts WHERE channel_id = p_channel_id AND scope = p_scope;
  ELSE
    v_live := least(v_live, p_cap);
  END IF;
  IF v_live > p_cap THEN
    WITH beyond AS (
      UPDATE access_tokens SET revoked_at = p_now
      WHERE id IN (SELECT id FROM access_tokens
                   -- `id > 0`: the predicate of access_tokens_cap_idx (migration 0160), which
                   -- the revoke above does not state, so that it can never walk this index.
                   WHERE channel_id = p_channel_id AND scope = p_scope AND revoked_at IS NULL AND id > 0 AND id < v_new_id
                   ORDER BY id LIMIT least(v_live - p_cap, 1000)
                   -- Requests at the cap at the same moment would all pick the same oldest token
                   -- and queue on its lock, one commit after another; each takes the oldest that
                   -- no other is revoking instead.
                   FOR UPDATE SKIP LOCKED)
        AND revoked_at IS NULL
      RETURNING token_hash)
    SELECT coalesce(array_agg(token_hash), '{}') INTO v_beyond FROM beyond;
  END IF;
  v_revoked := v_revoked || v_beyond;
  i := 1;
  WHILE i <= coalesce(array_length(v_revoked, 1), 0) LOOP
    PERFORM pg_notify(p_notify_channel, json_build_object('tokens', v_revoked[i : i + p_per_notification - 1])::text);
    i := i + p_per_notification;
  END LOOP;
  RETURN v_revoked;
END;
$$;

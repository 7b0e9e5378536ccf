-- D65 self-service: invitation links for new dashboard accounts, and when an admin API token was
-- last used.
--
-- An invited account is a users row whose password_hash is the marker '!invited' (no scrypt hash
-- ever matches it, so nobody can sign in) until its invitation is accepted. The link carries a
-- random 256-bit token; only its HMAC-SHA256 under SIGNING_SECRET is stored here. A link is valid
-- 72 hours (expires_at) and once: acceptance is the conditional
--   UPDATE account_invitations SET accepted_at = $now
--    WHERE token_hash = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $now
-- so that of many parallel acceptances exactly one finds the row still open (the others wait on
-- its row lock and then see accepted_at set). Sending a new link revokes the open ones.
CREATE TABLE account_invitations (
  id serial PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_by integer REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  revoked_at timestamptz,
  CHECK (expires_at > created_at),
  CHECK (accepted_at IS NULL OR revoked_at IS NULL)
);
CREATE INDEX account_invitations_user_idx ON account_invitations (user_id);
-- At most one accepted invitation per account.
CREATE UNIQUE INDEX account_invitations_accepted_once ON account_invitations (user_id) WHERE accepted_at IS NOT NULL;

-- Set by the token check at most once a minute per token ("last used" in the dashboard).
ALTER TABLE admin_api_tokens ADD COLUMN last_used_at timestamptz;

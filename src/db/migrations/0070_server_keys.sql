-- Server keys and scoped tokens (issue 13, DECISIONS D39-D41). The widget key of models C and D
-- sits in every buyer's page; the server key (`sk_`) never leaves the channel's server, and only
-- its tokens may confirm and read the sales report of those models (src/lib/integration-policy.ts).

-- Stored only as SHA-256 hashes, like widget keys (D39); several may be live for rotation.
CREATE TABLE server_keys (
  id serial PRIMARY KEY,
  channel_id integer NOT NULL REFERENCES sales_channels(id) ON DELETE CASCADE,
  key_hash text NOT NULL UNIQUE,
  last_four text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX server_keys_channel_idx ON server_keys (channel_id) WHERE revoked_at IS NULL;

-- A token carries the scope of the credential it was issued for, and names that credential: a
-- widget token its widget key, a server token its server key (revoking the key revokes them).
-- Existing tokens were all issued from widget keys.
ALTER TABLE access_tokens
  ADD COLUMN scope text NOT NULL DEFAULT 'widget' CHECK (scope IN ('widget', 'server')),
  ADD COLUMN server_key_id integer REFERENCES server_keys(id) ON DELETE CASCADE,
  ALTER COLUMN widget_key_id DROP NOT NULL,
  ADD CONSTRAINT access_tokens_credential_check CHECK (
    (scope = 'widget' AND widget_key_id IS NOT NULL AND server_key_id IS NULL)
    OR (scope = 'server' AND server_key_id IS NOT NULL AND widget_key_id IS NULL));
ALTER TABLE access_tokens ALTER COLUMN scope DROP DEFAULT;

-- Groups (D38) and the live-token cap are per scope (D41): minting widget tokens never revokes a
-- server token, so both indexes lead with (channel, scope).
DROP INDEX access_tokens_live_idx;
DROP INDEX access_tokens_cap_idx;
CREATE INDEX access_tokens_live_idx ON access_tokens (channel_id, scope, client_id) WHERE revoked_at IS NULL;
CREATE INDEX access_tokens_cap_idx ON access_tokens (channel_id, scope, id DESC) WHERE revoked_at IS NULL;
CREATE INDEX access_tokens_server_key_idx ON access_tokens (server_key_id) WHERE revoked_at IS NULL AND server_key_id IS NOT NULL;

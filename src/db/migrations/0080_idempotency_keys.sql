-- Idempotency-Key (D52, docs/idempotency.md): one row per credential and key. A request claims its
-- key with one INSERT ... ON CONFLICT, so that the database, not the instance, decides which of two
-- concurrent requests runs (a fleet shares the table). The row holds the claim while the request
-- runs, then the first response, replayed for 24 hours.
CREATE TABLE idempotency_keys (
  -- Which caller: the area and the sha256 of its bearer token (src/http/idempotency.ts).
  credential text NOT NULL,
  key text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
  -- sha256 of the canonical method, path and body: a repeat with another body is refused.
  fingerprint text NOT NULL,
  -- Random per claim: only the request that holds the claim may store its response or release it.
  claim text NOT NULL,
  state text NOT NULL CHECK (state IN ('running', 'done')),
  response_status integer,
  response_type text,
  response_body text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (credential, key),
  CHECK (state = 'running' OR response_status IS NOT NULL)
);

-- The sweep deletes by age.
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);

-- The pre-production integration checklist (issue 17, docs/preproduction.md): the first time each
-- channel completed each step of its integration with a real call. Written only outside
-- production, once per channel and step (INSERT ... ON CONFLICT DO NOTHING): the first completion
-- wins and is never moved.
CREATE TABLE channel_integration_steps (
  channel_id integer NOT NULL REFERENCES sales_channels(id) ON DELETE CASCADE,
  -- A step of src/lib/integration-policy.ts (INTEGRATION_STEPS) or an internal mark
  -- (token_rejected: a revoked or expired token was refused, the first half of token_renewed).
  step text NOT NULL CHECK (step ~ '^[a-z][a-z_]{0,40}$'),
  completed_at timestamptz NOT NULL,
  PRIMARY KEY (channel_id, step)
);

-- The live tokens of each channel and scope, counted (D41, issue 19). The cap on live tokens was
-- checked by walking the channel's live tokens on every token request: 0.5-0.7 ms of database time
-- with 2,000 live tokens, 1.3-3.8 ms with 8,000, paid on every token once a channel is at its cap.
-- The count is kept by a trigger on access_tokens, so that every way a token is issued, revoked or
-- deleted keeps it, and spread over a few rows per channel and scope (a transaction adds to one,
-- chosen by its transaction id), so that concurrent token requests of one channel do not queue on
-- one row. The live count is the sum of a channel's rows.
CREATE TABLE access_token_counts (
  channel_id integer NOT NULL,
  scope text NOT NULL,
  shard smallint NOT NULL,
  live integer NOT NULL,
  PRIMARY KEY (channel_id, scope, shard)
);

INSERT INTO access_token_counts (channel_id, scope, shard, live)
SELECT channel_id, scope, 0, count(*)::int FROM access_tokens WHERE revoked_at IS NULL GROUP BY channel_id, scope;

-- Current body in src/db/functions/121_access_tokens_count.sql (defined here because the trigger
-- needs it to exist).
CREATE OR REPLACE FUNCTION access_tokens_count() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RETURN NULL;
END;
$$;

-- Deferred to the commit: the count's row is then locked only for the end of the transaction,
-- after every token row it locks, so that two token requests never wait on each other in a cycle.
CREATE CONSTRAINT TRIGGER access_tokens_count AFTER INSERT OR UPDATE OF revoked_at OR DELETE ON access_tokens
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION access_tokens_count();

-- The waiting room (issue 28, D60).
--
-- A session's queue settings are one JSON value on the session (`queue`: enabled,
-- admission_per_minute, pass_ttl_seconds, opens_minutes_before, challenge), written by the admin
-- API, the dashboard and the import; null = the session has never had a queue.
ALTER TABLE sessions ADD COLUMN queue jsonb;

-- The draw of a session's queue: the secret seed whose SHA-256 the status document publishes before
-- the draw (the seed is sealed with the deployment secret, src/lib/secrets.ts), and, once drawn,
-- when and how many pre-queue tickets were shuffled. The queue itself (tickets, numbers, passes)
-- lives in memory or Redis (src/modules/queue/queue.store.ts), never here: polls, joins and passes
-- never query PostgreSQL.
CREATE TABLE session_queue_draws (
  session_id integer PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
  seed_sealed text NOT NULL,
  seed_sha256 text NOT NULL,
  drawn_at timestamptz,
  drawn_count integer,
  created_at timestamptz NOT NULL
);

-- The sessions whose queue is on: every cart create asks for this short list (cached, 10 s).
CREATE INDEX sessions_queue_enabled_idx ON sessions (id) WHERE (queue ->> 'enabled') = 'true';

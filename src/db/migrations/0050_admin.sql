-- Back office (issue 8): admin and promoter accounts, dashboard sessions, admin API tokens,
-- login throttling counted in the database (so it holds across instances) and the audit log.

-- role 'admin' sees everything; role 'promoter' only the data of its organiser.
CREATE TABLE users (
  id serial PRIMARY KEY,
  email text NOT NULL UNIQUE CHECK (email = lower(email)),
  -- scrypt$N$r$p$<salt base64>$<hash base64>, salt per user
  password_hash text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'promoter')),
  organiser_id integer REFERENCES organisers(id),
  created_at timestamptz NOT NULL DEFAULT now(),
  disabled_at timestamptz,
  CHECK ((role = 'admin' AND organiser_id IS NULL) OR (role = 'promoter' AND organiser_id IS NOT NULL))
);

-- Dashboard sessions: the cookie holds a random id, stored here only as its SHA-256 hash.
-- csrf_token is the synchronizer token every state-changing form of the session must carry.
CREATE TABLE user_sessions (
  id_hash text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX user_sessions_user_idx ON user_sessions (user_id);

-- Tokens for automation on /api/admin/v1, stored only as SHA-256 hashes.
CREATE TABLE admin_api_tokens (
  id serial PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  last_four text NOT NULL,
  created_at timestamptz NOT NULL,
  revoked_at timestamptz
);

-- Failed logins, per e-mail and per IP, for throttling.
CREATE TABLE login_failures (
  id bigserial PRIMARY KEY,
  email text NOT NULL,
  ip text NOT NULL,
  failed_at timestamptz NOT NULL
);
CREATE INDEX login_failures_email_idx ON login_failures (email, failed_at);
CREATE INDEX login_failures_ip_idx ON login_failures (ip, failed_at);

-- Who did what, when. user_id is NULL for the operator command line; organiser_id lets a
-- promoter read the entries about its own organiser's data.
CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  user_id integer REFERENCES users(id) ON DELETE SET NULL,
  user_email text NOT NULL,
  action text NOT NULL,
  target_type text NOT NULL,
  target_id text NOT NULL,
  organiser_id integer,
  details jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL
);
CREATE INDEX audit_log_created_idx ON audit_log (created_at DESC, id DESC);
CREATE INDEX audit_log_organiser_idx ON audit_log (organiser_id, created_at DESC);

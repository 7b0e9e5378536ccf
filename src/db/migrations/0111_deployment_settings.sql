-- What a deployment says about itself for the processes that do not serve (issue 16): the service
-- records its public address (PUBLIC_BASE_URL, or http://localhost:PORT) at every start, so that
-- the command line, run without that environment, prints and e-mails links that work.
CREATE TABLE deployment_settings (
  key text PRIMARY KEY,
  value text NOT NULL,
  updated_at timestamptz NOT NULL
);

-- D67: a message from the organiser to every ticket holder of a session (for example a time change
-- or the doors opening earlier). The message is kept (who sent what, when, to how many: the audit
-- of it), and the durable e-mail queue carries one e-mail per recipient (kind session_message):
-- unique per message and address, so that a retried request or a repeated insert sends nothing twice.
CREATE TABLE session_messages (
  id bigserial PRIMARY KEY,
  session_id integer NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  subject text NOT NULL,
  body text NOT NULL,
  actor text NOT NULL,
  recipients integer NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX session_messages_session_idx ON session_messages (session_id, id);
ALTER TABLE email_outbox ADD COLUMN IF NOT EXISTS session_message_id bigint REFERENCES session_messages(id) ON DELETE CASCADE;
CREATE UNIQUE INDEX IF NOT EXISTS email_outbox_session_message_uq ON email_outbox (session_message_id, lower(recipient)) WHERE session_message_id IS NOT NULL;

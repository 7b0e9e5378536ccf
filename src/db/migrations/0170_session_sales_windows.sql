-- The on-sale (issue 28, D59 and D74).
--
-- Sales windows (D59): a session may have a sales start and end. Outside the window every cart
-- write of the session answers 409 not_on_sale; the rule itself is the SQL function
-- session_is_on_sale (src/db/functions/015_session_is_on_sale.sql), which the hold, the full cart
-- path and the closing all call.
ALTER TABLE sessions
  ADD COLUMN sales_start_at timestamptz,
  ADD COLUMN sales_end_at timestamptz,
  ADD COLUMN cancelled_at timestamptz,
  ADD CONSTRAINT sessions_sales_window_order CHECK (sales_start_at IS NULL OR sales_end_at IS NULL OR sales_start_at < sales_end_at);

-- Changes of a session that buyers and channels are told about (D74): a cancellation or a move of
-- its start. One row per change; the e-mails of a move are queued once per holder and change
-- (email_outbox.session_change_id, unique with the recipient), so a retried request sends nothing twice.
CREATE TABLE session_changes (
  id bigserial PRIMARY KEY,
  session_id integer NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('cancelled', 'moved')),
  old_start timestamptz NOT NULL,
  new_start timestamptz NOT NULL,
  refund boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL
);
CREATE INDEX session_changes_session_idx ON session_changes (session_id, id);

-- The durable e-mail queue also carries the "your session has moved" e-mail (kind session_changed):
-- one per recipient and change, not tied to one order (order_id is null on those rows; the
-- language is the row's own). UNIQUE (order_id, kind) keeps holding for the ticket e-mail.
ALTER TABLE email_outbox DROP CONSTRAINT IF EXISTS email_outbox_kind_check;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_kind_check CHECK (kind IN ('tickets', 'refund', 'session_changed'));
ALTER TABLE email_outbox ALTER COLUMN order_id DROP NOT NULL;
ALTER TABLE email_outbox ADD CONSTRAINT email_outbox_order_of_tickets CHECK (kind <> 'tickets' OR order_id IS NOT NULL);
ALTER TABLE email_outbox
  ADD COLUMN session_change_id bigint REFERENCES session_changes(id) ON DELETE CASCADE,
  ADD COLUMN lang text;
CREATE UNIQUE INDEX email_outbox_session_change_uq ON email_outbox (session_change_id, recipient) WHERE session_change_id IS NOT NULL;

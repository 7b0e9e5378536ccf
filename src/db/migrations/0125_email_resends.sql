-- The box office's "resend tickets" (issue 16): the order's one ticket e-mail row (UNIQUE
-- (order_id, kind) stays) is queued again, and this counter goes up by one per resend. It is part
-- of the Message-ID, so that a mail client shows the resent e-mail as a new message rather than
-- hiding it as a repeated delivery of the first one.
ALTER TABLE email_outbox ADD COLUMN resends integer NOT NULL DEFAULT 0;

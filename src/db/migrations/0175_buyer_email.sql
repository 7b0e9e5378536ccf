-- Buyer e-mails that every mail server and client takes (issue 31 item 5, D72):
-- * message_key: a random Message-ID per outbox row, replaced when the box office queues it again, so
--   that ids never repeat after a fresh database (mail clients hide "duplicates") yet a retried
--   delivery of the same row keeps its id.
-- * organisers.reply_to_email: the organiser's box office address, the Reply-To of its buyers' mail.
-- * "find my order" (kind order_lookup): one row per request, not tied to one order (order_id NULL),
--   naming the channel and the language of the request.
-- The kind list is checked by the code that writes rows (several releases add kinds side by side),
-- so the CHECK on kind goes; IF [NOT] EXISTS keeps this file apart from other kinds' migrations.
ALTER TABLE email_outbox ADD COLUMN IF NOT EXISTS message_key text NOT NULL DEFAULT gen_random_uuid()::text;
ALTER TABLE email_outbox DROP CONSTRAINT IF EXISTS email_outbox_kind_check;
ALTER TABLE email_outbox ALTER COLUMN order_id DROP NOT NULL;
ALTER TABLE email_outbox ADD COLUMN IF NOT EXISTS channel_id integer REFERENCES sales_channels(id);
ALTER TABLE email_outbox ADD COLUMN IF NOT EXISTS lang text;
ALTER TABLE organisers ADD COLUMN IF NOT EXISTS reply_to_email text;

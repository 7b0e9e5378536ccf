-- D65: the invitation e-mail goes through the durable e-mail queue (kind account_invitation).
--
-- The queue composes each message from the database at sending time, and the link's token is not
-- stored in plain. So a new invitation keeps a random link_nonce instead, and its token is
-- HMAC-SHA256(SIGNING_SECRET, 'account-invitation:' || link_nonce): the database alone (a backup,
-- a read-only replica) yields no working link, the sender recomputes it from the nonce and the
-- secret, and token_hash (HMAC of the token) still finds the invitation from the link as before.
-- Links issued before this migration have no nonce: they work, but cannot be mailed.
ALTER TABLE account_invitations ADD COLUMN IF NOT EXISTS link_nonce text;

-- One e-mail per invitation: the outbox row names its invitation, unique. A replaced (revoked),
-- used or expired invitation's row is skipped at sending time.
ALTER TABLE email_outbox ADD COLUMN IF NOT EXISTS invitation_id integer REFERENCES account_invitations(id) ON DELETE CASCADE;
CREATE UNIQUE INDEX IF NOT EXISTS email_outbox_invitation_uq ON email_outbox (invitation_id) WHERE invitation_id IS NOT NULL;

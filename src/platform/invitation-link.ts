import crypto from 'node:crypto';
import type { Config } from '../config.js';

// The invitation link of a dashboard account (D65, docs/admin.md "Invitations, in detail"), shared by
// the accounts service that issues it and the e-mail queue that mails it. The database keeps a
// random nonce and the HMAC of the token, never the token: the token is recomputed from the nonce
// and SIGNING_SECRET when the page shows it and when the e-mail is composed (migration 0230).

/** A new nonce: 128 random bits. */
export const newLinkNonce = () => crypto.randomBytes(16).toString('base64url');

/** The link's token: HMAC-SHA256(SIGNING_SECRET, 'account-invitation:' + nonce), base64url (43 characters). */
export const invitationToken = (config: Config, nonce: string) =>
  crypto.createHmac('sha256', config.signingSecret).update(`account-invitation:${nonce}`).digest('base64url');

/** What the database stores to find an invitation by its link: HMAC-SHA256 of the token. */
export const invitationTokenHash = (config: Config, token: string) => crypto.createHmac('sha256', config.signingSecret).update(token).digest('hex');

export const invitationLink = (config: Config, token: string) => `${config.publicBaseUrl.replace(/\/$/, '')}/admin/invitations/${token}`;

import { sql } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { queryRows, type Db } from '../../db/client.js';
import { formatDateTime } from '../../platform/i18n.js';
import { invitationLink, invitationToken } from '../../platform/invitation-link.js';
import type { OutboxRow } from './email.repo.js';
import { actionMessage, envelopeOf, type OutgoingEmail } from './email-layout.js';
import type { DbTime } from '../../db/instants.js';

// D65: the invitation of a new dashboard account, e-mailed through the durable queue. The accounts
// service queues it in the transaction that issues the invitation (kind account_invitation, one row
// per invitation: the outbox's unique invitation_id makes it once-only, the queue's lease makes
// parallel workers send it once). The link is recomputed here from the invitation's nonce and
// SIGNING_SECRET (src/platform/invitation-link.ts): the outbox holds no token. The dashboard is in
// English, and so is this message.

/** Queues the e-mail of a new invitation (same transaction as the invitation). */
export async function queueInvitationEmail(tx: Db, invitation: { invitationId: number; recipient: string; at: Date }): Promise<void> {
  await tx.execute(sql`
    INSERT INTO email_outbox (kind, invitation_id, lang, recipient, next_attempt_at, created_at)
    VALUES ('account_invitation', ${invitation.invitationId}, 'en', ${invitation.recipient}, ${invitation.at}, ${invitation.at})
    ON CONFLICT (invitation_id) WHERE invitation_id IS NOT NULL DO NOTHING`);
}

/**
 * The invitation e-mail of an outbox row, or null when the link no longer works (used, replaced by
 * a newer link, expired, the account disabled) or was issued before links could be mailed (0230).
 */
export async function composeInvitationEmail(ctx: AppContext, row: OutboxRow): Promise<OutgoingEmail | null> {
  if (row.invitationId === null) return null;
  const [i] = await queryRows<{
    link_nonce: string | null;
    expires_at: DbTime;
    accepted_at: DbTime | null;
    revoked_at: DbTime | null;
    disabled_at: DbTime | null;
    role: string;
    organiser_name: string | null;
    inviter: string | null;
  }>(
    ctx.db,
    sql`SELECT i.link_nonce, i.expires_at, i.accepted_at, i.revoked_at, u.disabled_at, u.role, o.name AS organiser_name, c.email AS inviter
          FROM account_invitations i JOIN users u ON u.id = i.user_id
          LEFT JOIN organisers o ON o.id = u.organiser_id LEFT JOIN users c ON c.id = i.created_by
         WHERE i.id = ${row.invitationId}`,
  );
  const expiresAt = i ? new Date(i.expires_at) : null;
  if (!i || !expiresAt || i.link_nonce === null || i.accepted_at || i.revoked_at || i.disabled_at || expiresAt <= ctx.clock.now()) return null;
  const link = invitationLink(ctx.config, invitationToken(ctx.config, i.link_nonce));
  const host = new URL(ctx.config.publicBaseUrl).host;
  const until = formatDateTime(expiresAt, 'en', ctx.config.timezone);
  const what = i.role === 'admin' ? 'an administrator account' : `a promoter account${i.organiser_name ? ` for ${i.organiser_name}` : ''}`;
  const subject = `Your invitation to the ticketing dashboard at ${host}`;
  const lines = [
    'Hello,',
    `${i.inviter ?? 'An administrator'} has made you ${what} on the ticketing dashboard at ${host}.`,
    `Open the link below to choose your password; you are then signed in. The link works once, until ${until}.`,
  ];
  const action = 'Choose your password';
  const ignore = 'If you did not expect this, ignore this message: without the link nobody can use the account.';
  const { text, html } = actionMessage({ lang: 'en', subject, lines, action, link, showLink: true, closing: ignore });
  // Replies go to the admin who sent the invitation.
  return { ...envelopeOf(ctx.config, i.inviter, row.messageKey), to: row.recipient, subject, text, html, attachments: [] };
}

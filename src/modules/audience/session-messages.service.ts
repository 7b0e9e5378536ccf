import type { AppContext } from '../../app-context.js';
import { AppError, invalidData } from '../../http/errors.js';
import { isoWithOffset } from '../../lib/time.js';
import { canSee, type Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import { findSessionRecord } from '../catalogue/catalogue-admin.service.js';
import * as repo from './session-messages.repo.js';

// A message from the organiser to every ticket holder of a session (D67): one e-mail per recipient
// (each distinct address of the session's valid tickets) through the durable e-mail queue, the
// message kept with who sent it and to how many, and an audit entry, all in one transaction.

export const SUBJECT_MAX = 200;
export const BODY_MAX = 5000;

export interface SessionMessageView {
  id: number;
  session_id: number;
  subject: string;
  body: string;
  sent_by: string;
  recipients: number;
  /** How its e-mails stand in the queue. */
  emails: { sent: number; queued: number; failed: number };
  created_at: string;
}

const view = (m: repo.SessionMessageRow): SessionMessageView => ({
  id: m.id,
  session_id: m.session_id,
  subject: m.subject,
  body: m.body,
  sent_by: m.actor,
  recipients: m.recipients,
  emails: { sent: m.sent, queued: m.queued, failed: m.failed },
  created_at: isoWithOffset(m.created_at)!,
});

async function visibleSession(ctx: AppContext, actor: Actor, sessionId: number) {
  const found = await findSessionRecord(ctx, sessionId);
  if (!found || !canSee(actor, found.organiserId)) throw new AppError('not_found', 'Session not found');
  return found;
}

/**
 * Sends `subject` and `body` (plain text) to every ticket holder of the session, once per address.
 * A session without ticket holders is refused (409 `conflict`): nothing would be sent.
 */
export async function sendSessionMessageAs(ctx: AppContext, actor: Actor, sessionId: number, input: { subject: string; body: string }): Promise<SessionMessageView> {
  const { organiserId } = await visibleSession(ctx, actor, sessionId);
  const subject = input.subject.trim();
  const body = input.body.trim();
  const errors: Record<string, string[]> = {};
  if (!subject) errors.subject = ['is required'];
  else if (/[\r\n]/.test(subject)) errors.subject = ['must be one line'];
  if (!body) errors.body = ['is required'];
  if (Object.keys(errors).length) throw invalidData(errors);
  const at = ctx.clock.now();
  const id = await ctx.db.transaction(async (tx) => {
    const sent = await repo.insertMessage(tx, { sessionId, subject, body, actor: actor.email, at });
    if (sent.recipients === 0) throw new AppError('conflict', 'This session has no ticket holder to write to');
    await recordAudit(tx, { actor, action: 'session.message', targetType: 'session', targetId: sessionId, organiserId, details: { message_id: sent.id, subject, recipients: sent.recipients }, at });
    return sent.id;
  });
  const message = (await repo.messagesOfSession(ctx.db, sessionId)).find((m) => m.id === id)!;
  return view(message);
}

/** The messages sent to a session's ticket holders, newest first. */
export async function listSessionMessagesFor(ctx: AppContext, actor: Actor, sessionId: number): Promise<SessionMessageView[]> {
  await visibleSession(ctx, actor, sessionId);
  return (await repo.messagesOfSession(ctx.db, sessionId)).map(view);
}

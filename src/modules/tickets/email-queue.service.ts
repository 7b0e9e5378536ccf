import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { appSingleton, type AppContext } from '../../app-context.js';
import type { Config } from '../../config.js';
import type { GaugeSource } from '../../platform/metrics.js';
import { queueGauges } from '../../lib/queue-gauges.js';
import type { Db } from '../../db/client.js';
import type { Job } from '../../platform/scheduler.js';
import * as emailRepo from './email.repo.js';
import type { OutgoingEmail } from './email-layout.js';
import { composeRefundEmail, composeTicketEmail } from './tickets.email.js';
import { composeOrderLookupEmail } from './order-lookup.email.js';
import { ordersOfBuyer, replyToOfChannel, ticketsOfOrder } from './tickets.repo.js';
import { composeSessionChangeEmail } from './session-change.email.js';
import { composeSessionMessageEmail } from './session-message.email.js';
import { qrSecretOf } from './ticket-keys.service.js';
import { composePaymentRefundEmail } from './payment-refund.email.js';
import { composeWaitingListOfferEmail } from './waiting-list.email.js';
import { composeInvitationEmail } from './account-invitation.email.js';

export { queueInvitationEmail } from './account-invitation.email.js';

/** Where a composed message goes: an SMTP server, or `.eml` files for a developer. */
export interface MailSender {
  describe: string;
  send(message: OutgoingEmail, outboxId: number): Promise<void>;
}

const LEASE_MS = 5 * 60_000;
const BATCH = 20;
const FIRST_RETRY_MS = 30_000;
const MAX_RETRY_MS = 3_600_000;
/** Rejections by the mail server (5xx) are retried this many times; an unreachable server forever. */
const MAX_REJECTED_ATTEMPTS = 5;
const WORKER_INTERVAL_MS = 5_000;

/** Exponential backoff: 30 s, 1 min, 2 min, ... capped at one hour. */
export const retryDelayMs = (attempts: number) => Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);

function smtpSender(smtpUrl: string): MailSender {
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  } as nodemailer.TransportOptions);
  return {
    describe: 'smtp',
    async send(message) {
      await transport.sendMail(message);
    },
  };
}

function outboxFolderSender(dataDir: string): MailSender {
  const folder = path.join(dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    describe: `files in ${folder}`,
    async send(message, outboxId) {
      const info = (await transport.sendMail(message)) as unknown as { message: Buffer };
      await fs.mkdir(folder, { recursive: true });
      const file = path.join(folder, `${String(outboxId).padStart(8, '0')}-${message.to.replace(/[^A-Za-z0-9@._-]/g, '_')}.eml`);
      await fs.writeFile(file, info.message);
    },
  };
}

/** SMTP when SMTP_URL is set; otherwise `.eml` files under DATA_DIR/outbox, except in production. */
function defaultMailSender(config: Config): MailSender | null {
  if (config.smtpUrl) return smtpSender(config.smtpUrl);
  if (config.appEnv !== 'production') return outboxFolderSender(config.dataDir);
  return null;
}

/** The app's mail transport, made on first use (one SMTP connection pool per app). */
const senderOf = appSingleton('tickets.mail-sender', (ctx) => defaultMailSender(ctx.config));

export interface EmailQueueResult {
  claimed: number;
  sent: number;
  skipped: number;
  retrying: number;
  failed: number;
}

/** The message of an outbox row by its kind, or null when there is nothing (left) to send. */
async function composeRow(ctx: AppContext, row: emailRepo.OutboxRow): Promise<OutgoingEmail | null> {
  if (row.kind === 'payment_refunded') {
    // D73: a card payment that completed no order went back to the card.
    const facts = row.paymentId ? await emailRepo.paymentRefundFacts(ctx.db, row.paymentId) : null;
    return facts ? composePaymentRefundEmail(ctx.config, row, facts) : null;
  }
  if (row.kind === 'refund') {
    // The buyer's refund notice (D58): order_id is the refund's own orders row.
    const refund = row.orderId === null ? null : await emailRepo.refundMail(ctx.db, row.orderId);
    return refund ? composeRefundEmail(ctx.config, row, refund, await ticketsOfOrder(ctx.db, refund.orderId)) : null;
  }
  // D74: "your session has moved" (one per holder and change, queued by recordSessionMove).
  if (row.kind === 'session_changed') return composeSessionChangeEmail(ctx, row);
  // D67: the organiser's message to a session's ticket holders (one per address and message).
  if (row.kind === 'session_message') return composeSessionMessageEmail(ctx, row);
  // D69: seats held for the head of a waiting list (order_id is the offer's order).
  if (row.kind === 'waitinglist_offer') return composeWaitingListOfferEmail(ctx, row);
  // D65: the invitation link of a new dashboard account (once per invitation).
  if (row.kind === 'account_invitation') return composeInvitationEmail(ctx, row);
  if (row.kind === 'order_lookup') {
    if (row.channelId === null) return null;
    const orders = await ordersOfBuyer(ctx.db, row.channelId, row.recipient);
    const replyTo = await replyToOfChannel(ctx.db, row.channelId);
    return composeOrderLookupEmail(ctx.config, row, row.lang ?? 'es', orders, ctx.clock.now(), replyTo);
  }
  const tickets = row.orderId === null ? [] : (await ticketsOfOrder(ctx.db, row.orderId)).filter((t) => t.status === 'valid');
  if (tickets.length === 0) return null;
  const withQr = await Promise.all(tickets.map(async (t) => ({ ...t, qr: await qrSecretOf(ctx, t) })));
  return composeTicketEmail(ctx.config, row, withQr, ctx.clock.now());
}

/** A rejection by the server (5xx reply) will not heal by itself; anything else (server down) may. */
const isRejection = (err: unknown) => {
  const code = (err as { responseCode?: number }).responseCode;
  return typeof code === 'number' && code >= 500;
};

/**
 * Sends the due e-mails of the queue once: claims up to `limit` rows under a lease (several
 * instances can run this side by side on one database), sends each, marks it sent or schedules a
 * retry with exponential backoff. A row is never sent twice while its lease holds.
 */
export async function processEmailQueue(
  ctx: AppContext,
  opts: { owner?: string; limit?: number; leaseMs?: number; sender?: MailSender | null } = {},
): Promise<EmailQueueResult> {
  const owner = opts.owner ?? `${os.hostname()}:${process.pid}:${crypto.randomUUID()}`;
  const sender = opts.sender === undefined ? senderOf(ctx) : opts.sender;
  const now = ctx.clock.now();
  const leaseUntil = new Date(now.getTime() + (opts.leaseMs ?? LEASE_MS));
  const rows = await emailRepo.claimDueEmails(ctx.db, owner, now, leaseUntil, opts.limit ?? BATCH);
  const result: EmailQueueResult = { claimed: rows.length, sent: 0, skipped: 0, retrying: 0, failed: 0 };
  for (const row of rows) {
    try {
      const message = await composeRow(ctx, row);
      if (!message) {
        // Refunded before it went out, or no order left to tell of: nothing to send.
        await emailRepo.finishEmail(ctx.db, row.id, owner, 'skipped', ctx.clock.now());
        result.skipped++;
        continue;
      }
      if (!sender) throw new Error('no mail transport: set SMTP_URL');
      await sender.send(message, row.id);
      await emailRepo.finishEmail(ctx.db, row.id, owner, 'sent', ctx.clock.now());
      result.sent++;
    } catch (err) {
      const giveUp = isRejection(err) && row.attempts >= MAX_REJECTED_ATTEMPTS;
      const retryAt = new Date(ctx.clock.now().getTime() + retryDelayMs(row.attempts));
      await emailRepo.failEmail(ctx.db, row.id, owner, (err as Error).message ?? String(err), retryAt, giveUp);
      if (giveUp) result.failed++;
      else result.retrying++;
    }
  }
  return result;
}

/** Drains the queue every few seconds (run by the scheduler; tests call processEmailQueue themselves). */
export function emailQueueJob(ctx: AppContext, log: { warn(obj: object, msg: string): void }): Job {
  // One lease owner per process for the lifetime of the job.
  const owner = `${os.hostname()}:${process.pid}:${crypto.randomUUID()}`;
  return {
    name: 'email-queue',
    intervalMs: WORKER_INTERVAL_MS,
    describe: () => {
      const sender = senderOf(ctx);
      return sender ? `ticket e-mail to ${sender.describe}` : 'no ticket e-mail transport: SMTP_URL missing';
    },
    async run() {
      // Drain: keep going while full batches come back.
      for (;;) {
        const r = await processEmailQueue(ctx, { owner });
        if (r.retrying || r.failed) log.warn({ ...r }, 'ticket e-mails not delivered yet; will retry');
        if (r.claimed < BATCH) break;
      }
    },
  };
}

/** The queue as metrics gauges (docs/operations.md "Metrics"): read from the database at each scrape. */
export function emailQueueGauges(ctx: AppContext): GaugeSource[] {
  return queueGauges(
    () => emailRepo.queueStats(ctx.db, ctx.clock.now()),
    { name: 'taquilla_email_queue_depth', help: 'Ticket e-mails queued and not yet sent (due now or waiting for a retry)' },
    { name: 'taquilla_email_queue_oldest_age_seconds', help: 'Age of the oldest queued ticket e-mail (0 when the queue is empty)' },
  );
}
/** Queues an order's ticket e-mail again (the box office's resend); pass the transaction of its audit entry. */
export const requeueTicketEmail = (db: Db, orderId: number, recipient: string, at: Date) => emailRepo.requeueTicketEmail(db, orderId, recipient, at);

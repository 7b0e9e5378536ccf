import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/errors.js';
import { safeEqual } from '../../lib/secrets.js';
import type { Job } from '../../platform/scheduler.js';
import { apnsPushSender, logPushSender, type PassPushSender } from './apple-push.js';
import * as repo from './tickets.repo.js';
import type { TicketDocument } from './tickets.repo.js';
import * as registrations from './wallet-registrations.repo.js';
import { applePassOf, appleSigner, passAuthenticationToken } from './wallet.service.js';

// Apple's PassKit web service (D70, docs/wallet.md "Passes already in a wallet"): a device that
// saved a pass registers for it with the pass's authenticationToken; when the ticket changes
// (refund, reissue) the push job tells the device, which lists the serials that changed and
// fetches each pass again, now voided or carrying the new barcode.

const SERIAL_PATTERN = /^ticket-(\d{1,15})$/;

const unauthorised = () => new AppError('invalid_token', 'The pass authentication token is missing or wrong');

/** The pass type this deployment signs: 404 when Apple Wallet is off or the type is another. */
async function ensurePassType(ctx: AppContext, passTypeId: string): Promise<void> {
  if (ctx.config.wallet.apple === null) throw new AppError('wallet_not_configured', 'Apple Wallet passes are not offered by this deployment');
  if ((await appleSigner(ctx))!.passTypeId !== passTypeId) throw new AppError('not_found', 'Unknown pass type');
}

/**
 * The ticket behind an authenticated request (`Authorization: ApplePass <token>`): 401 for a missing
 * or wrong token (compared in constant time), 404 when no such ticket remains.
 */
async function authenticatedTicket(ctx: AppContext, passTypeId: string, serial: string, authorization: string | undefined): Promise<TicketDocument> {
  await ensurePassType(ctx, passTypeId);
  const token = /^ApplePass (\S{1,200})$/.exec(authorization ?? '')?.[1];
  if (!token || !safeEqual(passAuthenticationToken(ctx.config, serial), token)) throw unauthorised();
  const id = SERIAL_PATTERN.exec(serial)?.[1];
  const ticket = id ? await repo.ticketById(ctx.db, Number(id)) : null;
  if (!ticket) throw new AppError('not_found', 'Pass not found');
  return ticket;
}

/** Registers a device for a pass's updates: `created` true the first time (201), false after (200). */
export async function registerDevice(
  ctx: AppContext,
  r: { device: string; passTypeId: string; serial: string; pushToken: string; authorization: string | undefined },
): Promise<{ created: boolean }> {
  const ticket = await authenticatedTicket(ctx, r.passTypeId, r.serial, r.authorization);
  const created = await registrations.register(ctx.db, { device: r.device, passTypeId: r.passTypeId, serial: r.serial, ticketId: ticket.id, pushToken: r.pushToken, at: ctx.clock.now() });
  return { created };
}

/** Stops a device's updates of a pass (200 whether or not it was registered: the wanted state holds). */
export async function unregisterDevice(ctx: AppContext, r: { device: string; passTypeId: string; serial: string; authorization: string | undefined }): Promise<void> {
  await authenticatedTicket(ctx, r.passTypeId, r.serial, r.authorization);
  await registrations.unregister(ctx.db, r.device, r.passTypeId, r.serial);
}

/**
 * The serials a device registered that changed since `tag` (all without a tag), and the tag to
 * send next time; null when none (204). The tag is the oldest transaction still running when the
 * list was read (as the check-in download's cursor), so a change committing later is never missed.
 */
export async function updatedSerials(ctx: AppContext, device: string, passTypeId: string, tag: string | undefined): Promise<{ serialNumbers: string[]; lastUpdated: string } | null> {
  await ensurePassType(ctx, passTypeId);
  let since: number | null = null;
  if (tag !== undefined && tag !== '') {
    // A tag we did not give (or from before this version) lists everything: a spare fetch, never a miss.
    since = /^\d{1,19}$/.test(tag) ? Number(tag) : 0;
  }
  const floor = await registrations.snapshotFloor(ctx.db);
  const serialNumbers = await registrations.registeredSerials(ctx.db, device, passTypeId, since);
  if (serialNumbers.length === 0) return null;
  return { serialNumbers, lastUpdated: String(floor) };
}

/** Whole seconds: HTTP dates carry no more. */
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/**
 * The pass as it is now, or `notModified` when the device's copy (If-Modified-Since, the
 * Last-Modified it was given) is as new. Every change moves the time by at least a second.
 */
export async function latestPass(
  ctx: AppContext,
  r: { passTypeId: string; serial: string; authorization: string | undefined; ifModifiedSince: string | undefined },
): Promise<{ notModified: true; lastModified: Date } | { notModified: false; lastModified: Date; pass: Buffer }> {
  const ticket = await authenticatedTicket(ctx, r.passTypeId, r.serial, r.authorization);
  const lastModified = new Date(seconds(ticket.passUpdatedAt!) * 1000);
  const since = r.ifModifiedSince ? Date.parse(r.ifModifiedSince) : NaN;
  if (!Number.isNaN(since) && lastModified.getTime() <= since) return { notModified: true, lastModified };
  return { notModified: false, lastModified, pass: await applePassOf(ctx, ticket) };
}

// ---- pushes

const PUSH_BATCH = 100;
const PUSH_INTERVAL_MS = 15_000;

/** APNs with a configured certificate; the log otherwise (development signer). */
function pushSenderFor(ctx: AppContext, log: { info(obj: object, msg: string): void }): PassPushSender | null {
  const apple = ctx.config.wallet.apple;
  if (apple === null) return null;
  return apple === 'development' ? logPushSender(log) : apnsPushSender(ctx.config.wallet.apnsUrl, apple);
}

/**
 * One pass of the push job: every device holding a pass that changed since it was last told gets
 * one push per pass type. The registrations are the durable record: a push that fails stays
 * pending and is tried again at the next pass; a token APNs says is gone loses its registrations.
 */
export async function pushPassUpdates(ctx: AppContext, sender: PassPushSender, log: { warn(obj: object, msg: string): void }): Promise<{ sent: number; failed: number }> {
  let sent = 0;
  let failed = 0;
  for (const pending of await registrations.pendingPushes(ctx.db, PUSH_BATCH)) {
    try {
      if ((await sender.push(pending.pushToken, pending.passTypeId)) === 'gone') await registrations.forgetPushToken(ctx.db, pending.pushToken);
      else await registrations.markPushed(ctx.db, pending);
      sent++;
    } catch (err) {
      failed++;
      log.warn({ err, passTypeId: pending.passTypeId }, 'wallet pass update push failed; retried at the next pass');
    }
  }
  return { sent, failed };
}

/** The scheduler's job (only when Apple Wallet is offered). */
export function walletPushJob(ctx: AppContext, log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void }): Job | null {
  const sender = pushSenderFor(ctx, log);
  if (!sender) return null;
  return {
    name: 'wallet-push',
    intervalMs: PUSH_INTERVAL_MS,
    describe: () => sender.describe,
    async run() {
      await pushPassUpdates(ctx, sender, log);
    },
  };
}

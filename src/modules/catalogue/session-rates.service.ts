import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError, invalidData } from '../../http/errors.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { isoWithOffset } from '../../lib/time.js';
import { organiserScope, type Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import * as repo from './catalogue-admin.repo.js';
import { rateView, visibleRate, visibleSession, type RateView } from './catalogue-admin.service.js';

// Issue 29: rates copied from another session (so that a promoter does not type them again for each
// session) and rates deleted while nothing uses them. Both act on sessions of one organiser.

/** A session one may copy rates from, named for a picker (event, start), with its count of rates. */
export interface RateSource {
  id: number;
  event_id: number;
  event_name: string;
  start_datetime: string;
  rates: number;
}

/** Sessions with rates the actor may copy from (a promoter: its organiser's), by event name and start. */
export async function rateSourcesFor(ctx: AppContext, actor: Actor): Promise<RateSource[]> {
  const rows = await repo.sessionsWithRates(ctx.db, organiserScope(actor));
  return rows.map((r) => ({
    id: Number(r.id),
    event_id: Number(r.event_id),
    event_name: r.event_name ?? `event ${r.event_id}`,
    start_datetime: isoWithOffset(new Date(r.start_datetime))!,
    rates: Number(r.rates),
  }));
}

/**
 * Copies the rates of session `fromId` onto the sessions `toIds` in the caller's transaction: name,
 * translations, price, sector, meta and order. A rate whose name the target has already is left
 * alone (a copy done twice adds nothing). Both must be of one organiser; a sector-bound rate needs
 * the target on the same venue. Returns per target the rates added.
 */
export async function copyRatesIn(tx: Db, actor: Actor, from: { id: number; venueId: number; organiserId: number }, to: { id: number; venueId: number; organiserId: number }, now: Date) {
  if (from.organiserId !== to.organiserId) throw invalidData({ from_session_id: ['must be a session of the same organiser'] });
  if (from.id === to.id) throw invalidData({ from_session_id: ['must be another session'] });
  const source = await repo.ratesOfSession(tx, from.id);
  if (from.venueId !== to.venueId && source.some((r) => r.sectorId !== null)) {
    throw invalidData({ from_session_id: ['has rates for one sector of another venue: copy from a session of the same venue'] });
  }
  const have = new Set((await repo.ratesOfSession(tx, to.id)).map((r) => r.name.toLowerCase()));
  const added: RateView[] = [];
  for (const r of source) {
    if (have.has(r.name.toLowerCase())) continue;
    const row = await repo.insertRate(tx, {
      sessionId: to.id,
      name: r.name,
      names: r.names,
      price: r.price,
      sectorId: r.sectorId,
      meta: r.meta,
      sortOrder: r.sortOrder,
      createdAt: now,
      updatedAt: now,
    });
    added.push(rateView(row));
  }
  await recordAudit(tx, {
    actor,
    action: 'rate.copy',
    targetType: 'session',
    targetId: to.id,
    organiserId: to.organiserId,
    details: { from_session_id: from.id, rates: added.map((r) => r.name) },
    at: now,
  });
  return { added, skipped: source.length - added.length };
}

/** Copies the rates of session `fromId` onto session `toId` (both visible to the actor). */
export async function copyRatesAs(ctx: AppContext, actor: Actor, toId: number, fromId: number) {
  const to = await visibleSession(ctx.db, actor, toId);
  const from = await visibleSession(ctx.db, actor, fromId).catch(() => {
    throw invalidData({ from_session_id: ['must be a session you may see'] });
  });
  const now = ctx.clock.now();
  const result = await ctx.db.transaction((tx) =>
    copyRatesIn(
      tx,
      actor,
      { id: fromId, venueId: from.session.venueId, organiserId: from.organiserId },
      { id: toId, venueId: to.session.venueId, organiserId: to.organiserId },
      now,
    ),
  );
  if (result.added.length) inventoryChanged(ctx, [toId]);
  return result;
}

/**
 * Deletes a rate that nothing uses. A rate with order items (sold, held in a cart, or of past
 * orders: their history names it), vouchers restricted to it or waiting-list entries asking for it
 * stays: 409 rate_in_use, with what uses it in `data`. The sales guard of migration 0026 (a delete
 * trigger that waits for carts being written) makes this hold against a hold made meanwhile.
 */
export async function deleteRateAs(ctx: AppContext, actor: Actor, id: number): Promise<{ session_id: number }> {
  const { rate, organiserId } = await visibleRate(ctx.db, actor, id);
  const now = ctx.clock.now();
  const refuse = (use: Awaited<ReturnType<typeof repo.rateUse>>) => {
    const why = [
      use.sold && `${use.sold} sold ticket${use.sold === 1 ? '' : 's'}`,
      use.held && `${use.held} ticket${use.held === 1 ? '' : 's'} held in carts`,
      use.past && `${use.past} ticket${use.past === 1 ? '' : 's'} of expired or cancelled orders`,
      use.vouchers.length && `voucher${use.vouchers.length === 1 ? '' : 's'} ${use.vouchers.join(', ')} restricted to it`,
      use.waiting && `${use.waiting} waiting-list entr${use.waiting === 1 ? 'y' : 'ies'}`,
    ].filter(Boolean);
    return new AppError('rate_in_use', { rate: rate.name, uses: why.join('; ') }).withData({ rate_id: id, ...use });
  };
  try {
    await ctx.db.transaction(async (tx) => {
      const use = await repo.rateUse(tx, id);
      if (use.sold || use.held || use.past || use.vouchers.length || use.waiting) throw refuse(use);
      await repo.deleteRate(tx, id);
      await recordAudit(tx, { actor, action: 'rate.delete', targetType: 'rate', targetId: id, organiserId, details: { rate: rateView(rate) }, at: now });
    });
  } catch (err) {
    // A cart took the rate between the check and the delete: the sales guard refused it.
    if ((err as { code?: string }).code === '23503' || /violates the sales guard/.test(String((err as Error).message))) throw refuse(await repo.rateUse(ctx.db, id));
    throw err;
  }
  inventoryChanged(ctx, [rate.sessionId]);
  return { session_id: rate.sessionId };
}

import type { AppContext } from '../../app-context.js';
import type { ChannelRecord } from '../../db/channel-record.js';
import type { WaitingListStatus } from '../../db/schema/index.js';
import { AppError, invalidData, type FieldErrors } from '../../http/errors.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { policyOf } from '../../lib/integration-policy.js';
import { randomBase62, sha256 } from '../../lib/secrets.js';
import { isoWithMillis, isoWithOffset } from '../../lib/time.js';
import type { Actor } from '../../platform/actor.js';
import { notOnSaleError } from '../../platform/sale-state.js';
import { getSessionFor } from '../catalogue/catalogue-admin.service.js';
import { holdSeatsForOffer, holdZoneForOffer, type ItemRequest } from '../orders/orders.service.js';
import { offerCheckoutUrl, queueWaitingListOfferEmail } from '../tickets/waiting-list.email.js';
import { enqueueWebhookEvent } from '../webhooks/webhooks.outbox.js';
import * as repo from './waitinglist.repo.js';

// The waiting list (D69, docs/waiting-list.md). A buyer joins when the session (or a sector, or a
// rate) has fewer free seats than they want; the scheduler's waiting-list job gives freed seats to
// the list in order: it holds them for the first entry they fit as a pending order (the one hold,
// cart_hold_seats), e-mails the buyer a checkout link and tells the channel (waitinglist.offered).
// An offer not taken within WAITINGLIST_OFFER_MINUTES lapses; its seats come free and the next pass
// offers them to the next entry.

export interface JoinInput {
  email: string;
  quantity: number;
  sector_id?: number;
  rate_id?: number;
  name?: string;
}

/** What the buyer sees of their entry (the join answer and the position read). */
export interface EntryView {
  token?: string;
  status: WaitingListStatus;
  position: number | null;
  session_id: number;
  sector_id: number | null;
  rate_id: number | null;
  quantity: number;
  email: string;
  created_at: string;
  offer: { order_token: string; expires_at: string; checkout_url: string | null } | null;
}

/** The buyer's entry token: shown once (join answer, offer e-mail); only its hash is kept. */
const newEntryToken = () => `wl_${randomBase62(32)}`;
const hashToken = (token: string) => sha256(`waiting-list:${token}`);

const entryNotFound = () => new AppError('not_found', 'Waiting-list entry not found');

function entryView(ctx: AppContext, channel: ChannelRecord, entry: repo.EntryRow): EntryView {
  const open = entry.status === 'offered' && entry.orderToken !== null && entry.offerExpiresAt !== null;
  const checkout = policyOf(channel.integrationMode).portalCheckout !== null;
  return {
    status: entry.status,
    position: entry.position,
    session_id: entry.sessionId,
    sector_id: entry.sectorId,
    rate_id: entry.rateId,
    quantity: entry.quantity,
    email: entry.email,
    created_at: isoWithOffset(entry.createdAt)!,
    offer: open
      ? {
          order_token: entry.orderToken!,
          expires_at: isoWithMillis(entry.offerExpiresAt)!,
          checkout_url: checkout ? offerCheckoutUrl(ctx.config.portalCheckoutBaseUrl, channel.slug, entry.lang, entry.orderToken!) : null,
        }
      : null,
  };
}

/**
 * Joins the session's waiting list (D69) for `quantity` seats, optionally of one sector and one
 * rate. 404 when the channel does not sell the session; 409 not_on_sale outside its sale; 422 for a
 * sector or rate that is not the session's, a quantity past the caps; 409 seats_available while the scope has that many free seats (buy them);
 * 409 already_on_waiting_list when the address already waits for this session.
 */
export async function joinWaitingList(ctx: AppContext, channel: ChannelRecord, lang: string, sessionId: number, input: JoinInput): Promise<EntryView> {
  const now = ctx.clock.now();
  const session = await repo.sessionOfChannel(ctx.db, channel.id, sessionId, now);
  if (!session) throw new AppError('not_found', 'Session not found');
  if (!session.onSale) throw await notOnSaleError(ctx.db, sessionId);
  const errors: FieldErrors = {};
  const sectorId = input.sector_id ?? null;
  const rateId = input.rate_id ?? null;
  if (sectorId !== null) {
    const sector = await repo.sectorOfSession(ctx.db, sessionId, sectorId);
    // A numbered sector or an unnumbered zone alike (D69): a zone's entry waits for its places.
    if (!sector) errors.sector_id = ['is not a sector of this session'];
  }
  if (rateId !== null) {
    const rate = await repo.rateOfSession(ctx.db, sessionId, rateId);
    if (!rate) errors.rate_id = ['is not a rate of this session'];
    else if (sectorId !== null && rate.sectorId !== null && rate.sectorId !== sectorId) errors.rate_id = ['is not a rate of this sector'];
  }
  const cap = Math.min(ctx.config.maxItemsPerOrder, session.maxTicketsPerBuyer ?? Infinity);
  if (input.quantity > cap) errors.quantity = [`must be at most ${cap}`];
  if (Object.keys(errors).length) throw invalidData(errors);

  const available = await repo.freeSeatsInScope(ctx.db, sessionId, sectorId, rateId, now);
  if (available >= input.quantity) {
    throw new AppError('seats_available', { available }).withData({ available });
  }
  const token = newEntryToken();
  const email = input.email.trim();
  const id = await repo.insertEntry(ctx.db, {
    tokenHash: hashToken(token),
    channelId: channel.id,
    sessionId,
    sectorId,
    rateId,
    quantity: input.quantity,
    email,
    name: input.name?.trim() || null,
    lang,
    at: now,
  });
  if (id === null) throw new AppError('already_on_waiting_list', 'This e-mail address is already on the waiting list of this session');
  const entry = await repo.entryByToken(ctx.db, channel.id, hashToken(token), now);
  return { token, ...entryView(ctx, channel, entry!) };
}

/** The buyer's entry by its token: status, position (1 = next), and the open offer. 404 for another channel's. */
export async function waitingListEntry(ctx: AppContext, channel: ChannelRecord, token: string): Promise<EntryView> {
  const entry = await repo.entryByToken(ctx.db, channel.id, hashToken(token), ctx.clock.now());
  if (!entry) throw entryNotFound();
  return entryView(ctx, channel, entry);
}

// ---- offers (the scheduler's job)

/** Entries a pass looks at per session: the head of the list. */
const PASS_ENTRIES = 500;

interface Plan {
  entry: repo.WaitingEntry;
  items: ItemRequest[];
  /** The places are an unnumbered zone's: held as a quantity of the zone (holdZoneForOffer). */
  zone: boolean;
}

const natural = (a: string, b: string) => a.localeCompare(b, undefined, { numeric: true });

/** `quantity` seats of `scope`: side by side in one row where a row has them, else the first ones. */
function pickSeats(scope: repo.FreeSeat[], quantity: number): repo.FreeSeat[] {
  const rows = new Map<string, repo.FreeSeat[]>();
  for (const seat of scope) {
    const key = `${seat.sectorId}\u0000${seat.row}`;
    rows.set(key, [...(rows.get(key) ?? []), seat]);
  }
  for (const seats of rows.values()) {
    if (seats.length < quantity) continue;
    seats.sort((a, b) => natural(a.number, b.number));
    return seats.slice(0, quantity);
  }
  return scope.slice(0, quantity);
}

/**
 * Which entry gets which free places, in list order: each entry, head first, takes its quantity from
 * the free places of its scope (sector, rate) that no entry before it took. An entry whose scope has
 * too few places waits; the places it cannot use yet go to the next entries they fit. An entry
 * without a sector is served numbered seats; an entry of an unnumbered zone, that zone's places.
 */
function planOffers(entries: repo.WaitingEntry[], seats: repo.FreeSeat[], rates: { id: number; sectorId: number | null }[]): Plan[] {
  const taken = new Set<number>();
  const plans: Plan[] = [];
  const ordered = [...seats].sort((a, b) => a.sectorId - b.sectorId || natural(a.row, b.row) || natural(a.number, b.number) || a.id - b.id);
  for (const entry of entries) {
    const rateFor = (seat: repo.FreeSeat): number | undefined =>
      rates.find((r) => (entry.rateId === null || r.id === entry.rateId) && (r.sectorId === null || r.sectorId === seat.sectorId))?.id;
    const inScope = (s: repo.FreeSeat) => (entry.sectorId === null ? !s.zone : s.sectorId === entry.sectorId);
    const scope = ordered.filter((s) => !taken.has(s.id) && inScope(s) && rateFor(s) !== undefined);
    if (scope.length < entry.quantity) continue;
    const zone = scope[0]!.zone;
    const chosen = zone ? scope.slice(0, entry.quantity) : pickSeats(scope, entry.quantity);
    for (const seat of chosen) taken.add(seat.id);
    plans.push({ entry, zone, items: chosen.map((s) => ({ session_seat_id: s.id, rate_id: rateFor(s)! })) });
  }
  return plans;
}

/**
 * One pass over one session, in one transaction under the session's advisory lock (another
 * instance's pass of the same session makes this one a no-op): settles ended offers, then offers
 * the free seats to the list. Each offer is a hold (cart_hold_seats), the entry's move to
 * 'offered' (conditional: a second offer for an entry rolls the whole pass back), the e-mail in the
 * durable queue and the webhook event, all committed together. Returns how many offers it made.
 */
async function offerSession(ctx: AppContext, sessionId: number): Promise<number> {
  const now = ctx.clock.now();
  const until = new Date(now.getTime() + ctx.config.waitingListOfferMinutes * 60_000);
  const made = await ctx.db.transaction(async (tx) => {
    if (!(await repo.tryLockSession(tx, sessionId))) return 0;
    await repo.settleOffers(tx, sessionId, now);
    const entries = await repo.waitingEntries(tx, sessionId, PASS_ENTRIES);
    if (entries.length === 0) return 0;
    const { onSale, seats } = await repo.freeSeatsOf(tx, sessionId, now);
    if (!onSale || seats.length === 0) return 0;
    let offers = 0;
    for (const plan of planOffers(entries, seats, await repo.ratesOf(tx, sessionId))) {
      const { entry } = plan;
      const buyer = `wl:${entry.channelId}:${entry.id}`;
      // A zone's places are claimed as a quantity of the zone (the places the plan counted may be
      // any of its free ones); numbered seats by their ids, through the cart's one hold.
      const hold = plan.zone
        ? await holdZoneForOffer(ctx, tx, {
            channelId: entry.channelId,
            buyer,
            lang: entry.lang,
            sessionId,
            sectorId: entry.sectorId!,
            rateId: plan.items[0]!.rate_id,
            quantity: entry.quantity,
            until,
            now,
          })
        : await holdSeatsForOffer(ctx, tx, { channelId: entry.channelId, buyer, lang: entry.lang, items: plan.items, until, now });
      // A place taken by a buyer since it was read (or a cap): nothing was written; the next pass
      // sees the inventory anew.
      if (!hold.held) break;
      const heldIds = 'sessionSeatIds' in hold && hold.sessionSeatIds ? hold.sessionSeatIds : plan.items.map((i) => i.session_seat_id);
      if (!(await repo.markOffered(tx, entry.id, hold.orderId, now, until))) {
        throw new AppError('conflict.offered_twice', { entry: entry.id });
      }
      const policy = policyOf(entry.integrationMode as ChannelRecord['integrationMode']);
      const checkoutUrl = policy.portalCheckout !== null ? offerCheckoutUrl(ctx.config.portalCheckoutBaseUrl, entry.channelSlug, entry.lang, hold.orderToken) : null;
      // The buyer's e-mail where the portal can take the payment (A, B, C); model D's channel
      // hears of the offer through its webhook and brings the buyer to its own checkout.
      if (checkoutUrl !== null) {
        await queueWaitingListOfferEmail(tx, { orderId: hold.orderId, recipient: entry.email, channelId: entry.channelId, lang: entry.lang, at: now });
      }
      await enqueueWebhookEvent(tx, {
        channelId: entry.channelId,
        type: 'waitinglist.offered',
        at: now,
        data: {
          waiting_list_entry: { id: entry.id, session_id: sessionId, sector_id: entry.sectorId, rate_id: entry.rateId, quantity: entry.quantity, email: entry.email, lang: entry.lang },
          order: { order_token: hold.orderToken, reference: hold.reference, expires_at: isoWithMillis(until), session_seat_ids: heldIds },
          checkout_url: checkoutUrl,
        },
      });
      offers++;
    }
    return offers;
  });
  if (made > 0) inventoryChanged(ctx, [sessionId]);
  return made;
}

/**
 * One pass of the waiting-list job over every session with entries: settles offers taken or
 * lapsed, and offers freed seats to the lists. Safe on several instances at once. Returns the
 * number of offers made.
 */
export async function offerFreedSeats(ctx: AppContext): Promise<number> {
  let total = 0;
  for (const sessionId of await repo.sessionsWithEntries(ctx.db)) total += await offerSession(ctx, sessionId);
  return total;
}

// ---- the organiser's view

/** Conversion figures of a list: offers made, taken and lapsed; rate = converted / offers that ended. */
function conversion(f: Omit<repo.ListFigures, 'session_id'>) {
  const offers = f.offered + f.converted + f.lapsed;
  const ended = f.converted + f.lapsed;
  return { ...f, offers, conversion_rate: ended === 0 ? null : Math.round((f.converted / ended) * 1000) / 1000 };
}

const ENTRIES_LIMIT = 2000;

/** A session's waiting list for the organiser (D69): figures, then every entry in list order. */
export async function sessionWaitingListFor(ctx: AppContext, actor: Actor, sessionId: number) {
  const session = await getSessionFor(ctx, actor, sessionId);
  const now = ctx.clock.now();
  const [figures] = await repo.figuresOfEvent(ctx.db, session.event_id, sessionId, now);
  const entries = await repo.entriesOfSession(ctx.db, sessionId, now, ENTRIES_LIMIT);
  const empty = { waiting: 0, waiting_tickets: 0, offered: 0, converted: 0, converted_tickets: 0, lapsed: 0, left: 0 };
  const { session_id: _, ...counts } = figures ?? { session_id: sessionId, ...empty };
  return {
    session_id: sessionId,
    offer_minutes: ctx.config.waitingListOfferMinutes,
    figures: conversion(counts),
    entries: entries.map((e) => ({
      id: e.id,
      position: e.position,
      status: e.status,
      email: e.email,
      name: e.name,
      quantity: e.quantity,
      sector_id: e.sectorId,
      rate_id: e.rateId,
      channel_id: e.channelId,
      lang: e.lang,
      created_at: isoWithOffset(e.createdAt)!,
      offered_at: isoWithOffset(e.offeredAt),
      offer_expires_at: isoWithMillis(e.offerExpiresAt),
      settled_at: isoWithOffset(e.settledAt),
      order_reference: e.orderReference,
    })),
  };
}

/** The waiting-list figures of an event for the sales overview (D66), in total and per session. */
export async function waitingListFiguresOfEvent(ctx: AppContext, eventId: number, sessionId: number | null) {
  const rows = await repo.figuresOfEvent(ctx.db, eventId, sessionId, ctx.clock.now());
  const keys = ['waiting', 'waiting_tickets', 'offered', 'converted', 'converted_tickets', 'lapsed', 'left'] as const;
  const total = Object.fromEntries(keys.map((k) => [k, rows.reduce((s, r) => s + r[k], 0)])) as Omit<repo.ListFigures, 'session_id'>;
  return { ...conversion(total), sessions: rows.map(({ session_id, ...f }) => ({ session_id, ...conversion(f) })) };
}


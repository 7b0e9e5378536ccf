import { prepareQueueDraw, queueSessionChanged, queueSettingsOf, type QueueInput } from '../queue/queue.service.js';
import type { AppContext } from '../../app-context.js';
import type { AppEnv } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { events as eventsTable, fees as feesTable, rates as ratesTable, sessions as sessionsTable } from '../../db/schema/index.js';
import { AppError, invalidData } from '../../http/errors.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { toAmount, toMinor } from '../../lib/money.js';
import { isoWithOffset } from '../../lib/time.js';
import { urlProblem } from '../../lib/url-rules.js';
import { canSee, organiserForNew, organiserScope, type Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import * as repo from './catalogue-admin.repo.js';
import { eventTranslations } from './catalogue.repo.js';
import { cancelSessionAs } from './session-changes.service.js';
import { MAX_TICKETS_PER_BUYER_LIMIT } from '../orders/hold-caps.service.js';
import { createSessionInventory } from './import.repo.js';
import { lockSessionSale, recordSessionMove } from './session-changes.service.js';

// Back-office use cases on venues, events, sessions, rates and fees (issue 8). A promoter reaches
// only its organiser's records: another organiser's id answers 404, exactly like an unknown id.
// Amounts come in as decimal numbers of the deployment currency (like the catalogue import).

type EventRow = typeof eventsTable.$inferSelect;
type SessionRow = typeof sessionsTable.$inferSelect;
type RateRow = typeof ratesTable.$inferSelect;
type FeeRow = typeof feesTable.$inferSelect;

export type EventStatus = EventRow['status'];
export type SessionStatus = SessionRow['status'];
export const EVENT_STATUSES: EventStatus[] = ['draft', 'published', 'archived'];
export const SESSION_STATUSES: SessionStatus[] = ['draft', 'on_sale', 'closed', 'cancelled'];
const LANG = /^[a-z]{2}$/;

function checkFields(checks: [boolean, string, string][]): void {
  const fields: Record<string, string[]> = {};
  for (const [bad, field, text] of checks) if (bad) (fields[field] ??= []).push(text);
  if (Object.keys(fields).length) throw invalidData(fields);
}

function minor(amount: number, field: string): number {
  const value = typeof amount === 'number' && amount >= 0 ? toMinor(amount) : null;
  if (value === null || value > 100_000_000) throw invalidData({ [field]: ['must be an amount of at least 0 with at most two decimals'] });
  return value;
}

function date(value: string, field: string): Date {
  const d = new Date(value);
  if (!value || Number.isNaN(d.getTime())) throw invalidData({ [field]: ['must be a date and time (ISO 8601)'] });
  return d;
}

// ---- views (the JSON of the admin API; the dashboard renders the same objects)

const eventView = (e: EventRow, tr: { lang: string; name: string; description: string | null }[]) => ({
  id: e.id,
  organiser_id: e.organiserId,
  venue_id: e.venueId,
  status: e.status,
  default_lang: e.defaultLang,
  image_url: e.imageUrl,
  names: Object.fromEntries(tr.map((t) => [t.lang, t.name])),
  descriptions: Object.fromEntries(tr.filter((t) => t.description).map((t) => [t.lang, t.description!])),
  created_at: isoWithOffset(e.createdAt)!,
  updated_at: isoWithOffset(e.updatedAt)!,
});
export type EventView = ReturnType<typeof eventView>;

const sessionView = (s: SessionRow) => ({
  id: s.id,
  event_id: s.eventId,
  venue_id: s.venueId,
  start_datetime: isoWithOffset(s.startDatetime)!,
  end_datetime: isoWithOffset(s.endDatetime),
  status: s.status,
  max_tickets_per_buyer: s.maxTicketsPerBuyer,
  sales_start_at: isoWithOffset(s.salesStartAt),
  sales_end_at: isoWithOffset(s.salesEndAt),
  cancelled_at: isoWithOffset(s.cancelledAt),
  queue: s.queue ?? null,
});

export const rateView = (r: RateRow) => ({
  id: r.id,
  session_id: r.sessionId,
  sector_id: r.sectorId,
  name: r.name,
  names: r.names,
  price: toAmount(r.price),
  meta: r.meta,
  sort_order: r.sortOrder,
});
export type RateView = ReturnType<typeof rateView>;

/** percent fees are stored in basis points and shown as a percentage (5 = 5 %). */
const feeView = (f: FeeRow) => ({
  id: f.id,
  event_id: f.eventId,
  session_id: f.sessionId,
  name: f.name,
  kind: f.kind,
  amount: f.kind === 'percent' ? f.amount / 100 : toAmount(f.amount),
});
export type FeeView = ReturnType<typeof feeView>;

// ---- ownership: each returns the record when the actor may see it, else 404

export async function visibleEvent(db: Db, actor: Actor, id: number) {
  const event = await repo.findEvent(db, id);
  if (!event || !canSee(actor, event.organiserId)) throw new AppError('not_found', 'Event not found');
  return event;
}

export async function visibleSession(db: Db, actor: Actor, id: number) {
  const found = await repo.findSession(db, id);
  if (!found || !canSee(actor, found.organiserId)) throw new AppError('not_found', 'Session not found');
  return found;
}

export async function visibleRate(db: Db, actor: Actor, id: number) {
  const found = await repo.findRate(db, id);
  if (!found || !canSee(actor, found.organiserId)) throw new AppError('not_found', 'Rate not found');
  return found;
}

async function visibleFee(db: Db, actor: Actor, id: number) {
  const found = await repo.findFee(db, id);
  if (!found || !canSee(actor, found.organiserId)) throw new AppError('not_found', 'Fee not found');
  return found;
}

// ---- venues (read-only here: maps come with the catalogue import)

/** Venues the actor may use, with their sectors. */
export async function listVenuesFor(ctx: AppContext, actor: Actor) {
  const venues = await repo.listVenues(ctx.db, organiserScope(actor));
  const sectors = await repo.sectorsOfVenues(ctx.db, venues.map((v) => v.id));
  return venues.map((v) => ({
    id: v.id,
    organiser_id: v.organiserId,
    name: v.name,
    city: v.city,
    sectors: sectors
      .filter((s) => s.venueId === v.id)
      .map((s) => ({ id: s.id, name: s.name, numbered: s.numbered, capacity: s.capacity })),
  }));
}

// ---- events

export async function listEventsFor(ctx: AppContext, actor: Actor): Promise<EventView[]> {
  const events = await repo.listEvents(ctx.db, organiserScope(actor));
  const tr = await eventTranslations(ctx.db, events.map((e) => e.id));
  return events.map((e) => eventView(e, tr.filter((t) => t.eventId === e.id)));
}

/** An event with its sessions and its event-wide fees. */
export async function getEventFor(ctx: AppContext, actor: Actor, id: number) {
  const event = await visibleEvent(ctx.db, actor, id);
  const [tr, sessions, fees] = await Promise.all([
    eventTranslations(ctx.db, [id]),
    repo.sessionsOfEvent(ctx.db, id),
    repo.feesOf(ctx.db, { eventId: id }),
  ]);
  return { ...eventView(event, tr), sessions: sessions.map(sessionView), fees: fees.map(feeView) };
}

export interface EventInput {
  organiser_id?: number | null;
  venue_id?: number;
  names?: Record<string, string>;
  descriptions?: Record<string, string>;
  default_lang?: string;
  image_url?: string | null;
  status?: EventStatus;
}

function validateEvent(input: EventInput, creating: boolean, appEnv: AppEnv): void {
  const imageProblem = input.image_url ? urlProblem(input.image_url, appEnv) : null;
  const names = Object.entries(input.names ?? {}).filter(([, v]) => v.trim());
  checkFields([
    [creating && !input.venue_id, 'venue_id', 'is required'],
    [(creating || input.names !== undefined) && names.length === 0, 'names', 'needs a name in at least one language'],
    [Object.keys({ ...input.names, ...input.descriptions }).some((l) => !LANG.test(l)), 'names', 'languages are two-letter codes'],
    [names.some(([, v]) => v.length > 300), 'names', 'at most 300 characters'],
    [input.default_lang !== undefined && !LANG.test(input.default_lang), 'default_lang', 'must be a two-letter code'],
    [input.status !== undefined && !EVENT_STATUSES.includes(input.status), 'status', `must be one of ${EVENT_STATUSES.join(', ')}`],
    [imageProblem !== null, 'image_url', imageProblem ?? ''],
  ]);
}

const translationRows = (names: Record<string, string>, descriptions: Record<string, string>) =>
  Object.entries(names)
    .filter(([, name]) => name.trim())
    .map(([lang, name]) => ({ lang, name: name.trim(), description: descriptions[lang]?.trim() || null }));

/** Creates an event, as a draft unless a status is given, on a venue of the same organiser. */
export async function createEventAs(ctx: AppContext, actor: Actor, input: EventInput) {
  validateEvent(input, true, ctx.config.appEnv);
  const organiserId = organiserForNew(actor, input.organiser_id);
  const venue = await repo.findVenue(ctx.db, input.venue_id!);
  if (!venue || !canSee(actor, venue.organiserId)) throw new AppError('not_found', 'Venue not found');
  if (venue.organiserId !== organiserId) throw invalidData({ venue_id: ["must be a venue of the event's organiser"] });
  const now = ctx.clock.now();
  const names = input.names!;
  const id = await ctx.db.transaction(async (tx) => {
    const event = await repo.insertEvent(tx, {
      organiserId,
      venueId: venue.id,
      defaultLang: input.default_lang ?? Object.keys(names)[0] ?? 'es',
      status: input.status ?? 'draft',
      imageUrl: input.image_url || null,
      createdAt: now,
      updatedAt: now,
    });
    await repo.replaceTranslations(tx, event.id, translationRows(names, input.descriptions ?? {}));
    await recordAudit(tx, { actor, action: 'event.create', targetType: 'event', targetId: event.id, organiserId, details: { names }, at: now });
    return event.id;
  });
  return getEventFor(ctx, actor, id);
}

/** Edits an event's names, descriptions, language, image or status. */
export async function updateEventAs(ctx: AppContext, actor: Actor, id: number, input: Omit<EventInput, 'organiser_id' | 'venue_id'>) {
  const event = await visibleEvent(ctx.db, actor, id);
  validateEvent(input, false, ctx.config.appEnv);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const patch: Partial<EventRow> = { updatedAt: now };
    if (input.default_lang !== undefined) patch.defaultLang = input.default_lang;
    if (input.image_url !== undefined) patch.imageUrl = input.image_url || null;
    if (input.status !== undefined) patch.status = input.status;
    await repo.updateEvent(tx, id, patch);
    if (input.names !== undefined || input.descriptions !== undefined) {
      const current = await eventTranslations(tx, [id]);
      const names = input.names ?? Object.fromEntries(current.map((t) => [t.lang, t.name]));
      const descriptions = input.descriptions ?? Object.fromEntries(current.map((t) => [t.lang, t.description ?? '']));
      await repo.replaceTranslations(tx, id, translationRows(names, descriptions));
    }
    const action = input.status === 'published' && event.status !== 'published' ? 'event.publish' : 'event.update';
    await recordAudit(tx, { actor, action, targetType: 'event', targetId: id, organiserId: event.organiserId, details: { ...input }, at: now });
  });
  return getEventFor(ctx, actor, id);
}

/** Publishes an event: channels that sell it list it. */
export const publishEventAs = (ctx: AppContext, actor: Actor, id: number) => updateEventAs(ctx, actor, id, { status: 'published' });

// ---- sessions

/** A session with its rates, its fees and those of its event. */
export async function getSessionFor(ctx: AppContext, actor: Actor, id: number) {
  const { session } = await visibleSession(ctx.db, actor, id);
  const [rates, fees] = await Promise.all([repo.ratesOfSession(ctx.db, id), repo.feesOf(ctx.db, { eventId: session.eventId, sessionId: id })]);
  return { ...sessionView(session), rates: rates.map(rateView), fees: fees.map(feeView) };
}

export interface SessionInput {
  start_datetime?: string;
  end_datetime?: string | null;
  status?: SessionStatus;
  /** Hold cap per buyer in this session (D44); null removes it. */
  max_tickets_per_buyer?: number | null;
  /** Sales window (D59); null removes an end. */
  sales_start_at?: string | null;
  sales_end_at?: string | null;
  /** Waiting room (D60), merged over the current one; null removes it. */
  queue?: QueueInput | null;
}

export function sessionPatch(input: SessionInput, creating: boolean, current?: SessionRow) {
  checkFields([
    [creating && !input.start_datetime, 'start_datetime', 'is required'],
    [input.status !== undefined && !SESSION_STATUSES.includes(input.status), 'status', `must be one of ${SESSION_STATUSES.join(', ')}`],
    [
      input.max_tickets_per_buyer != null &&
        !(Number.isInteger(input.max_tickets_per_buyer) && input.max_tickets_per_buyer >= 1 && input.max_tickets_per_buyer <= MAX_TICKETS_PER_BUYER_LIMIT),
      'max_tickets_per_buyer',
      `must be a whole number from 1 to ${MAX_TICKETS_PER_BUYER_LIMIT}, or empty for no cap`,
    ],
  ]);
  const patch: Partial<SessionRow> = {};
  if (input.start_datetime !== undefined) patch.startDatetime = date(input.start_datetime, 'start_datetime');
  if (input.end_datetime !== undefined) patch.endDatetime = input.end_datetime ? date(input.end_datetime, 'end_datetime') : null;
  if (input.status !== undefined) patch.status = input.status;
  if (input.max_tickets_per_buyer !== undefined) patch.maxTicketsPerBuyer = input.max_tickets_per_buyer;
  if (input.sales_start_at !== undefined) patch.salesStartAt = input.sales_start_at ? date(input.sales_start_at, 'sales_start_at') : null;
  if (input.sales_end_at !== undefined) patch.salesEndAt = input.sales_end_at ? date(input.sales_end_at, 'sales_end_at') : null;
  if (creating && patch.status === 'cancelled') throw invalidData({ status: ['a new session cannot be cancelled'] });
  const start = patch.startDatetime ?? current?.startDatetime;
  const end = patch.endDatetime !== undefined ? patch.endDatetime : current?.endDatetime;
  if (start && end && end <= start) throw invalidData({ end_datetime: ['must be after start_datetime'] });
  const salesStart = patch.salesStartAt !== undefined ? patch.salesStartAt : (current?.salesStartAt ?? null);
  const salesEnd = patch.salesEndAt !== undefined ? patch.salesEndAt : (current?.salesEndAt ?? null);
  if (salesStart && salesEnd && salesEnd <= salesStart) throw invalidData({ sales_end_at: ['must be after sales_start_at'] });
  if (input.queue !== undefined) patch.queue = queueSettingsOf(input.queue, current?.queue ?? null);
  const queue = patch.queue !== undefined ? patch.queue : (current?.queue ?? null);
  // The pre-queue is drawn at the sales start: a queue without one would never admit anyone.
  if (queue?.enabled && !salesStart) throw invalidData({ 'queue.enabled': ['needs sales_start_at: the pre-queue is drawn at the sales start'] });
  return patch;
}

/** Adds a session to an event (a draft unless a status is given) with its inventory. */
export async function createSessionAs(ctx: AppContext, actor: Actor, eventId: number, input: SessionInput) {
  const event = await visibleEvent(ctx.db, actor, eventId);
  const patch = sessionPatch(input, true);
  const now = ctx.clock.now();
  const id = await ctx.db.transaction((tx) => insertSessionIn(ctx, tx, actor, event, patch, now));
  queueSessionChanged(ctx, id);
  return getSessionFor(ctx, actor, id);
}

/**
 * The writes of a new session inside the caller's transaction: the row, its waiting-room draw, its
 * inventory and the audit entry. The caller announces it (queueSessionChanged) after the commit.
 */
export async function insertSessionIn(ctx: AppContext, tx: Db, actor: Actor, event: EventRow, patch: Partial<SessionRow>, now: Date): Promise<number> {
  const session = await repo.insertSession(tx, {
    eventId: event.id,
    venueId: event.venueId,
    startDatetime: patch.startDatetime!,
    endDatetime: patch.endDatetime ?? null,
    status: patch.status ?? 'draft',
    maxTicketsPerBuyer: patch.maxTicketsPerBuyer ?? null,
    salesStartAt: patch.salesStartAt ?? null,
    salesEndAt: patch.salesEndAt ?? null,
    queue: patch.queue ?? null,
    createdAt: now,
    updatedAt: now,
  });
  await prepareQueueDraw(ctx, tx, session.id, patch.queue ?? null);
  await createSessionInventory(tx, session.id, event.venueId);
  await recordAudit(tx, {
    actor,
    action: 'session.create',
    targetType: 'session',
    targetId: session.id,
    organiserId: event.organiserId,
    details: { event_id: event.id, start_datetime: isoWithOffset(patch.startDatetime!) },
    at: now,
  });
  return session.id;
}

/** Edits a session's times or status. */
export async function updateSessionAs(ctx: AppContext, actor: Actor, id: number, input: SessionInput) {
  const { session, organiserId } = await visibleSession(ctx.db, actor, id);
  if (input.status === 'cancelled' && session.status !== 'cancelled') {
    // D74: a cancellation is the same act however it is asked for. Here it keeps the sold tickets
    // (POST /sessions/{id}/cancel with refund: true refunds them); the other fields are saved first.
    const { status: _cancelled, ...rest } = input;
    if (Object.keys(rest).length > 0) await updateSessionAs(ctx, actor, id, rest);
    await cancelSessionAs(ctx, actor, id, { refund: false });
    return getSessionFor(ctx, actor, id);
  }
  const patch = sessionPatch(input, false, session);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    // A new status, start or sales window decides what may still be sold (D74): no closing of
    // the session runs while this is written.
    await lockSessionSale(tx, id);
    await repo.updateSession(tx, id, { ...patch, updatedAt: now });
    await prepareQueueDraw(ctx, tx, id, patch.queue !== undefined ? patch.queue : session.queue);
    // D74: a new start e-mails every ticket holder once and tells the channels (same transaction).
    if (patch.startDatetime && patch.startDatetime.getTime() !== session.startDatetime.getTime()) {
      await recordSessionMove(tx, id, session.startDatetime, now);
    }
    const action = input.status === 'on_sale' && session.status !== 'on_sale' ? 'session.publish' : 'session.update';
    await recordAudit(tx, { actor, action, targetType: 'session', targetId: id, organiserId, details: { ...input }, at: now });
  });
  inventoryChanged(ctx, [id]);
  queueSessionChanged(ctx, id);
  return getSessionFor(ctx, actor, id);
}

/** Puts a session on sale. */
export const publishSessionAs = (ctx: AppContext, actor: Actor, id: number) => updateSessionAs(ctx, actor, id, { status: 'on_sale' });

// ---- rates

export interface RateInput {
  name?: string;
  names?: Record<string, string>;
  price?: number;
  sector_id?: number | null;
  meta?: Record<string, unknown>;
  sort_order?: number;
}

async function ratePatch(db: Db, input: RateInput, venueId: number, creating: boolean) {
  checkFields([
    [(creating || input.name !== undefined) && (!input.name?.trim() || input.name.length > 200), 'name', 'must have 1 to 200 characters'],
    [creating && input.price === undefined, 'price', 'is required'],
    [Object.keys(input.names ?? {}).some((l) => !LANG.test(l)), 'names', 'languages are two-letter codes'],
  ]);
  const patch: Partial<RateRow> = {};
  if (input.name !== undefined) patch.name = input.name.trim();
  if (input.names !== undefined) patch.names = Object.fromEntries(Object.entries(input.names).filter(([, v]) => v.trim()));
  if (input.price !== undefined) patch.price = minor(input.price, 'price');
  if (input.meta !== undefined) patch.meta = input.meta;
  if (input.sort_order !== undefined) patch.sortOrder = input.sort_order;
  if (input.sector_id !== undefined) {
    if (input.sector_id !== null && !(await repo.sectorOfVenue(db, input.sector_id, venueId))) {
      throw invalidData({ sector_id: ["must be a sector of the session's venue"] });
    }
    patch.sectorId = input.sector_id;
  }
  return patch;
}

/** Adds a rate (price per ticket, for every sector or one) to a session. */
export async function createRateAs(ctx: AppContext, actor: Actor, sessionId: number, input: RateInput): Promise<RateView> {
  const { session, organiserId } = await visibleSession(ctx.db, actor, sessionId);
  const patch = await ratePatch(ctx.db, input, session.venueId, true);
  const now = ctx.clock.now();
  const rate = await ctx.db.transaction(async (tx) => {
    const existing = await repo.ratesOfSession(tx, sessionId);
    const row = await repo.insertRate(tx, {
      sessionId,
      name: patch.name!,
      names: patch.names ?? {},
      price: patch.price!,
      sectorId: patch.sectorId ?? null,
      meta: patch.meta ?? {},
      sortOrder: patch.sortOrder ?? existing.length,
      createdAt: now,
      updatedAt: now,
    });
    await recordAudit(tx, { actor, action: 'rate.create', targetType: 'rate', targetId: row.id, organiserId, details: { session_id: sessionId, ...input }, at: now });
    return row;
  });
  inventoryChanged(ctx, [sessionId]);
  return rateView(rate);
}

/** Edits a rate's name, price, sector or meta. */
export async function updateRateAs(ctx: AppContext, actor: Actor, id: number, input: RateInput): Promise<RateView> {
  const { rate, venueId, organiserId } = await visibleRate(ctx.db, actor, id);
  const patch = await ratePatch(ctx.db, input, venueId, false);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await repo.updateRate(tx, id, { ...patch, updatedAt: now });
    const from = { name: rate.name, price: toAmount(rate.price), sector_id: rate.sectorId };
    await recordAudit(tx, { actor, action: 'rate.update', targetType: 'rate', targetId: id, organiserId, details: { from, to: input }, at: now });
  });
  inventoryChanged(ctx, [rate.sessionId]);
  const { rate: after } = (await repo.findRate(ctx.db, id))!;
  return rateView(after);
}

// ---- fees

export interface FeeInput {
  name?: string;
  kind?: 'fixed' | 'percent';
  amount?: number;
}

function feePatch(input: FeeInput, creating: boolean, current?: FeeRow) {
  checkFields([
    [(creating || input.name !== undefined) && (!input.name?.trim() || input.name.length > 200), 'name', 'must have 1 to 200 characters'],
    [(creating || input.kind !== undefined) && input.kind !== 'fixed' && input.kind !== 'percent', 'kind', 'must be fixed or percent'],
    [creating && input.amount === undefined, 'amount', 'is required'],
  ]);
  const patch: Partial<FeeRow> = {};
  if (input.name !== undefined) patch.name = input.name.trim();
  if (input.kind !== undefined) patch.kind = input.kind;
  const kind = patch.kind ?? current?.kind;
  if (input.amount !== undefined || (current && input.kind !== undefined && input.kind !== current.kind)) {
    const amount = input.amount ?? (current!.kind === 'percent' ? current!.amount / 100 : toAmount(current!.amount));
    // percent: a percentage with two decimals kept as basis points; fixed: minor units
    patch.amount = minor(amount, 'amount');
    if (kind === 'percent' && patch.amount > 10_000) throw invalidData({ amount: ['a percentage cannot exceed 100'] });
  }
  return patch;
}

/** Adds a management fee per ticket to an event (all its sessions) or to one session. */
export async function createFeeAs(ctx: AppContext, actor: Actor, target: { eventId: number } | { sessionId: number }, input: FeeInput): Promise<FeeView> {
  const owner =
    'eventId' in target
      ? { organiserId: (await visibleEvent(ctx.db, actor, target.eventId)).organiserId, sessions: [] as number[] }
      : { organiserId: (await visibleSession(ctx.db, actor, target.sessionId)).organiserId, sessions: [target.sessionId] };
  const patch = feePatch(input, true);
  const now = ctx.clock.now();
  const fee = await ctx.db.transaction(async (tx) => {
    const row = await repo.insertFee(tx, {
      eventId: 'eventId' in target ? target.eventId : null,
      sessionId: 'sessionId' in target ? target.sessionId : null,
      name: patch.name!,
      kind: patch.kind!,
      amount: patch.amount!,
    });
    await recordAudit(tx, { actor, action: 'fee.create', targetType: 'fee', targetId: row.id, organiserId: owner.organiserId, details: { ...target, ...input }, at: now });
    return row;
  });
  inventoryChanged(ctx, owner.sessions);
  return feeView(fee);
}

/** One fee, when the actor may see it. */
export async function getFeeFor(ctx: AppContext, actor: Actor, id: number): Promise<FeeView> {
  return feeView((await visibleFee(ctx.db, actor, id)).fee);
}

export async function updateFeeAs(ctx: AppContext, actor: Actor, id: number, input: FeeInput): Promise<FeeView> {
  const { fee, organiserId } = await visibleFee(ctx.db, actor, id);
  const patch = feePatch(input, false, fee);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    if (Object.keys(patch).length) await repo.updateFee(tx, id, patch);
    await recordAudit(tx, { actor, action: 'fee.update', targetType: 'fee', targetId: id, organiserId, details: { from: feeView(fee), to: input }, at: now });
  });
  return feeView((await repo.findFee(ctx.db, id))!.fee);
}

export async function deleteFeeAs(ctx: AppContext, actor: Actor, id: number): Promise<void> {
  const { fee, organiserId } = await visibleFee(ctx.db, actor, id);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await repo.deleteFee(tx, id);
    await recordAudit(tx, { actor, action: 'fee.delete', targetType: 'fee', targetId: id, organiserId, details: { fee: feeView(fee) }, at: now });
  });
}

/** A session with its organiser, or null: for modules that check an actor's reach themselves. */
export function findSessionRecord(ctx: AppContext, id: number) {
  return repo.findSession(ctx.db, id);
}

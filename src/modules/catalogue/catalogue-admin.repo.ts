import { and, asc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { eventTextSql } from '../../platform/i18n.js';
import { ofOrganiser, ofOrganiserSql } from '../../platform/organisers.repo.js';
import { eventTranslations, events, fees, rates, sectors, sessions, venues } from '../../db/schema/index.js';
import type { DbTime } from '../../db/instants.js';

// Reads and writes of the back office on the catalogue tables (issue 8).

export async function listVenues(db: Db, organiserId: number | null) {
  return db
    .select()
    .from(venues)
    .where(ofOrganiser(venues.organiserId, organiserId))
    .orderBy(asc(venues.id));
}

export async function findVenue(db: Db, id: number) {
  const rows = await db.select().from(venues).where(eq(venues.id, id));
  return rows[0] ?? null;
}

export async function sectorsOfVenues(db: Db, venueIds: number[]) {
  if (venueIds.length === 0) return [];
  return db.select().from(sectors).where(and(inArray(sectors.venueId, venueIds), eq(sectors.retired, false))).orderBy(asc(sectors.sortOrder), asc(sectors.id));
}

export async function listEvents(db: Db, organiserId: number | null) {
  return db
    .select()
    .from(events)
    .where(ofOrganiser(events.organiserId, organiserId))
    .orderBy(asc(events.id));
}

export async function findEvent(db: Db, id: number) {
  const rows = await db.select().from(events).where(eq(events.id, id));
  return rows[0] ?? null;
}

export async function insertEvent(db: Db, event: typeof events.$inferInsert) {
  const [row] = await db.insert(events).values(event).returning();
  return row!;
}

export async function updateEvent(db: Db, id: number, patch: Partial<typeof events.$inferInsert>) {
  await db.update(events).set(patch).where(eq(events.id, id));
}

export async function replaceTranslations(db: Db, eventId: number, rows: { lang: string; name: string; description: string | null }[]) {
  await db.delete(eventTranslations).where(eq(eventTranslations.eventId, eventId));
  if (rows.length) await db.insert(eventTranslations).values(rows.map((r) => ({ eventId, ...r })));
}

export async function sessionsOfEvent(db: Db, eventId: number) {
  return db.select().from(sessions).where(eq(sessions.eventId, eventId)).orderBy(asc(sessions.startDatetime), asc(sessions.id));
}

/** A session with the organiser of its event. */
export async function findSession(db: Db, id: number) {
  const rows = await db
    .select({ session: sessions, organiserId: events.organiserId })
    .from(sessions)
    .innerJoin(events, eq(events.id, sessions.eventId))
    .where(eq(sessions.id, id));
  return rows[0] ?? null;
}

export async function insertSession(db: Db, session: typeof sessions.$inferInsert) {
  const [row] = await db.insert(sessions).values(session).returning();
  return row!;
}

export async function updateSession(db: Db, id: number, patch: Partial<typeof sessions.$inferInsert>) {
  await db.update(sessions).set(patch).where(eq(sessions.id, id));
}

export async function ratesOfSession(db: Db, sessionId: number) {
  return db.select().from(rates).where(eq(rates.sessionId, sessionId)).orderBy(asc(rates.sortOrder), asc(rates.id));
}

/** A rate with its session's venue and the organiser of its event. */
export async function findRate(db: Db, id: number) {
  const rows = await db
    .select({ rate: rates, venueId: sessions.venueId, organiserId: events.organiserId })
    .from(rates)
    .innerJoin(sessions, eq(sessions.id, rates.sessionId))
    .innerJoin(events, eq(events.id, sessions.eventId))
    .where(eq(rates.id, id));
  return rows[0] ?? null;
}

export async function insertRate(db: Db, rate: typeof rates.$inferInsert) {
  const [row] = await db.insert(rates).values(rate).returning();
  return row!;
}

export async function updateRate(db: Db, id: number, patch: Partial<typeof rates.$inferInsert>) {
  await db.update(rates).set(patch).where(eq(rates.id, id));
}

/** Fees set on the event itself and, when given, on one session. */
export async function feesOf(db: Db, target: { eventId?: number; sessionId?: number }) {
  const conditions: SQL[] = [];
  if (target.eventId) conditions.push(eq(fees.eventId, target.eventId));
  if (target.sessionId) conditions.push(eq(fees.sessionId, target.sessionId));
  return db.select().from(fees).where(or(...conditions)).orderBy(asc(fees.id));
}

/** A fee with the organiser of its event (directly or through its session). */
export async function findFee(db: Db, id: number) {
  const rows = await db.select().from(fees).where(eq(fees.id, id));
  const fee = rows[0];
  if (!fee) return null;
  const eventId = fee.eventId ?? (await db.select({ eventId: sessions.eventId }).from(sessions).where(eq(sessions.id, fee.sessionId!)))[0]?.eventId;
  const event = eventId ? await findEvent(db, eventId) : null;
  return event ? { fee, organiserId: event.organiserId, eventId: event.id } : null;
}

export async function insertFee(db: Db, fee: typeof fees.$inferInsert) {
  const [row] = await db.insert(fees).values(fee).returning();
  return row!;
}

export async function updateFee(db: Db, id: number, patch: Partial<typeof fees.$inferInsert>) {
  await db.update(fees).set(patch).where(eq(fees.id, id));
}

export async function deleteFee(db: Db, id: number) {
  await db.delete(fees).where(eq(fees.id, id));
}

export async function sectorOfVenue(db: Db, sectorId: number, venueId: number) {
  const rows = await db.select().from(sectors).where(and(eq(sectors.id, sectorId), eq(sectors.venueId, venueId)));
  return rows[0] ?? null;
}

/** What still names a rate (issue 29: a rate is deletable while unused): its order items by order status, vouchers, waiting lists. */
export async function rateUse(db: Db, rateId: number) {
  const [row] = await queryRows<{ sold: number | string; held: number | string; past: number | string; vouchers: string[] | null; waiting: number | string }>(
    db,
    sql`SELECT (SELECT count(*) FROM order_items i JOIN orders o ON o.id = i.order_id WHERE i.rate_id = ${rateId} AND o.status = 'completed') AS sold,
               (SELECT count(*) FROM order_items i JOIN orders o ON o.id = i.order_id WHERE i.rate_id = ${rateId} AND o.status = 'pending') AS held,
               (SELECT count(*) FROM order_items i JOIN orders o ON o.id = i.order_id WHERE i.rate_id = ${rateId} AND o.status NOT IN ('completed', 'pending')) AS past,
               (SELECT array_agg(v.code ORDER BY v.code) FROM vouchers v WHERE v.rate_id = ${rateId}) AS vouchers,
               (SELECT count(*) FROM waiting_list_entries w WHERE w.rate_id = ${rateId}) AS waiting`,
  );
  return { sold: Number(row!.sold), held: Number(row!.held), past: Number(row!.past), vouchers: row!.vouchers ?? [], waiting: Number(row!.waiting) };
}

export async function deleteRate(db: Db, id: number) {
  await db.delete(rates).where(eq(rates.id, id));
}

/** Sessions an actor may copy rates from (`organiserId` null: every organiser), with event name, start and rate count. */
export function sessionsWithRates(db: Db, organiserId: number | null) {
  return queryRows<{ id: number; event_id: number; event_name: string | null; start_datetime: DbTime; venue_id: number; organiser_id: number; rates: number | string }>(
    db,
    sql`SELECT s.id, s.event_id, ${eventTextSql('name', sql`e.id`, 'en', sql`e.default_lang`)} AS event_name, s.start_datetime, s.venue_id, e.organiser_id,
               (SELECT count(*) FROM rates r WHERE r.session_id = s.id) AS rates
          FROM sessions s JOIN events e ON e.id = s.event_id
         WHERE ${ofOrganiserSql(sql`e.organiser_id`, organiserId)}
           AND EXISTS (SELECT 1 FROM rates r WHERE r.session_id = s.id)
         ORDER BY event_name, s.start_datetime, s.id
         LIMIT 500`,
  );
}

/** Locks the event's row until the transaction ends (series of sessions of one event, one at a time). */
export async function lockEvent(db: Db, id: number) {
  await db.execute(sql`SELECT id FROM events WHERE id = ${id} FOR UPDATE`);
}

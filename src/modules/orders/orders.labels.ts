import { sql } from 'drizzle-orm';
import { appSingleton, type AppContext } from '../../app-context.js';
import { parseJson, queryRows } from '../../db/client.js';
import { namedCache } from '../../platform/cache.js';
import { languageChain, pickByLanguage, translatedName } from '../../platform/i18n.js';

// What an order view shows besides the order's own rows: the names of its events, rates and
// sectors, its sessions' dates and its seats' rows and numbers. Joining them in SQL for every view
// was 40 % of a flash-sale hold's database work (issue 3), so they are kept here per session.
// Seat labels never change once a session exists and are kept while the session is in use; names and
// dates can be edited by an operator and are re-read after NAMES_MAX_AGE_MS, so an order view may
// show a rename up to that late (the catalogue's session detail behaves the same, catalogue.service).

export const NAMES_MAX_AGE_MS = 10_000;
const MAX_SESSIONS = 200;

interface SessionNames {
  eventId: number;
  defaultLang: string;
  /** Event name per language. */
  eventNames: Record<string, string>;
  startDatetime: Date;
  sectors: Map<number, { name: string; numbered: boolean }>;
  rates: Map<number, { name: string; names: Record<string, string> | null }>;
  loadedAt: number;
}

export interface SessionLabels {
  names: SessionNames;
  /** Row and number of each numbered seat of the session, by session_seat_id. */
  seats: Map<number, { row: string; number: string }>;
}

/**
 * The labels of the most recently viewed sessions. Names age out after NAMES_MAX_AGE_MS while the
 * seats of the same entry are kept (the reload reuses them), so the age is checked here rather than
 * by a ttl that would drop both.
 */
const cacheOf = appSingleton('orders.session-labels', () => ({
  entries: namedCache<number, SessionLabels>({ name: 'orders.session-labels', max: MAX_SESSIONS }),
  /** Loads under way, so that a burst of views of one session reads it once. */
  pending: new Map<number, Promise<SessionLabels | null>>(),
}));

/** The event name in `lang`, by the language fallback rule (platform/i18n). */
export function eventName(names: SessionNames, lang: string): string {
  return pickByLanguage(names.eventNames, languageChain(lang, names.defaultLang)) ?? '';
}

/** The rate name in `lang`, by the same rule, else its plain name. */
export function rateName(names: SessionNames, rateId: number, lang: string): string {
  const rate = names.rates.get(rateId);
  return rate ? translatedName(rate.name, rate.names, languageChain(lang, names.defaultLang)) : '';
}

/**
 * The labels of the sessions named, from the cache or read at once (one query per missing session).
 * `stale` lists sessions whose cached labels lacked something an order needs (a rate or seat added
 * since they were read): they are read again.
 */
export async function labelsOfSessions(ctx: AppContext, sessionIds: Iterable<number>, stale: ReadonlySet<number> = new Set()): Promise<Map<number, SessionLabels>> {
  const cache = cacheOf(ctx);
  const now = Date.now();
  const out = new Map<number, SessionLabels>();
  const loads: Promise<void>[] = [];
  for (const id of new Set(sessionIds)) {
    const hit = cache.entries.get(id);
    if (hit && !stale.has(id) && now - hit.names.loadedAt < NAMES_MAX_AGE_MS) {
      out.set(id, hit);
      continue;
    }
    // A stale session is read afresh even if a load is under way: that load may reuse the old seats.
    let pending = stale.has(id) ? undefined : cache.pending.get(id);
    if (!pending) {
      pending = load(ctx, id, stale.has(id) ? undefined : hit?.seats).finally(() => cache.pending.delete(id));
      cache.pending.set(id, pending);
    }
    loads.push(
      pending.then((labels) => {
        if (labels) out.set(id, labels);
      }),
    );
  }
  await Promise.all(loads);
  return out;
}

async function load(ctx: AppContext, sessionId: number, knownSeats?: SessionLabels['seats']): Promise<SessionLabels | null> {
  const [row] = await queryRows<{
    event_id: number;
    default_lang: string;
    start_datetime: Date | string;
    event_names: Record<string, string> | string | null;
    sectors: [number, string, boolean][] | string | null;
    rates: [number, string, Record<string, string> | null][] | string | null;
    seats: [number, string, string][] | string | null;
  }>(
    ctx.db,
    sql`SELECT e.id AS event_id, e.default_lang, se.start_datetime,
          (SELECT json_object_agg(t.lang, t.name) FROM event_translations t WHERE t.event_id = e.id) AS event_names,
          (SELECT json_agg(json_build_array(sec.id, sec.name, sec.numbered)) FROM sectors sec WHERE sec.venue_id = se.venue_id) AS sectors,
          (SELECT json_agg(json_build_array(r.id, r.name, r.names)) FROM rates r WHERE r.session_id = se.id) AS rates,
          ${
            knownSeats
              ? sql`NULL::json`
              : sql`(SELECT json_agg(json_build_array(ss.id, st.row, st.number)) FROM session_seats ss JOIN seats st ON st.id = ss.seat_id
                     WHERE ss.session_id = se.id)`
          } AS seats
        FROM sessions se JOIN events e ON e.id = se.event_id WHERE se.id = ${sessionId}`,
  );
  const cache = cacheOf(ctx);
  if (!row) {
    cache.entries.delete(sessionId);
    return null;
  }
  const labels: SessionLabels = {
    names: {
      eventId: row.event_id,
      defaultLang: row.default_lang,
      eventNames: parseJson(row.event_names) ?? {},
      startDatetime: new Date(row.start_datetime),
      sectors: new Map((parseJson(row.sectors) ?? []).map(([id, name, numbered]) => [id, { name, numbered }])),
      rates: new Map((parseJson(row.rates) ?? []).map(([id, name, names]) => [id, { name, names }])),
      loadedAt: Date.now(),
    },
    seats: knownSeats ?? new Map((parseJson(row.seats) ?? []).map(([id, r, n]) => [id, { row: r, number: n }])),
  };
  cache.entries.set(sessionId, labels);
  return labels;
}

import crypto from 'node:crypto';
import { appSingleton, type AppContext } from '../../app-context.js';
import type { ChannelRecord } from '../../db/channel-record.js';
import { notFound } from '../../http/errors.js';
import { onInventoryChanged } from '../../lib/inventory-events.js';
import { saleStateOf, windowJson, type SaleState } from '../../platform/sale-state.js';
import * as repo from './catalogue.repo.js';
import { parseTakenSeats, sessionContext, sessionLayout } from './catalogue.service.js';
import { LiveMap, type LiveDelta } from './live-map.js';

// Live seat maps (D62). Each instance keeps, per session that buyers are watching, a LiveMap (the
// seats that are not free, the sectors' free places, the last versions) and answers every poll and
// every Server-Sent Events stream from it. The database is read once per change, not per buyer:
// - a hold, release or sale on this instance marks the session's map stale at once (the inventory
//   notices of its writers, src/lib/inventory-events.ts);
// - one on another instance arrives as a database notification (availability.notices.ts);
// - a hold that expires frees its seat without any write: the map knows its earliest expiry;
// - and, as a safety net for a notification lost while the listening connection was down, a
//   watched map is re-read at least every MAX_AGE_MS.
// A stale map is re-read (one query, shared by every poll waiting for it) by the next poll, or at
// once when a stream watches it.

/** Longest a map is served without being re-read (notifications lost on a reconnect). */
const MAX_AGE_MS = 30_000;
/** A stream's push waits this long after a notice, so that a burst of writes is sent as one change. */
const PUSH_DELAY_MS = 50;
/** Sessions kept in memory per instance; the least recently watched beyond it is forgotten. */
const MAX_SESSIONS = 1_000;

/** One event a stream is sent, and the body of a poll's 200. */
export interface AvailabilityBody extends LiveDelta {
  session_id: number;
  sale_state: SaleState;
  sales_start_at: string | null;
  sales_end_at: string | null;
}

type Subscriber = () => void;

interface Entry {
  sessionId: number;
  map: LiveMap;
  context: repo.SessionContextRow | null;
  /** A write happened since the last read (or nothing was read yet). */
  stale: boolean;
  loading: Promise<void> | null;
  /** Real time of the last read (the safety net's age). */
  loadedAt: number;
  /** When the state changes without any write: the earliest hold expiry or sales window edge. */
  nextChangeAt: number | null;
  lastUsed: number;
  subscribers: Set<Subscriber>;
  pushTimer: NodeJS.Timeout | null;
  changeTimer: NodeJS.Timeout | null;
}

class LiveMaps {
  readonly entries = new Map<number, Entry>();

  constructor(private readonly ctx: AppContext) {}

  /** The session's map, read again first when it is stale; null for an unknown session. */
  async fresh(sessionId: number): Promise<Entry | null> {
    let entry = this.entries.get(sessionId);
    if (!entry) {
      entry = {
        sessionId,
        map: new LiveMap(),
        context: null,
        stale: true,
        loading: null,
        loadedAt: 0,
        nextChangeAt: null,
        lastUsed: 0,
        subscribers: new Set(),
        pushTimer: null,
        changeTimer: null,
      };
      this.entries.set(sessionId, entry);
      this.evictIdle();
    }
    entry.lastUsed = Date.now();
    const now = this.ctx.clock.now().getTime();
    if ((entry.nextChangeAt !== null && now >= entry.nextChangeAt) || Date.now() - entry.loadedAt > MAX_AGE_MS) entry.stale = true;
    // Wait for a read in flight, then start one if a write came meanwhile: at most two reads, shared.
    if (entry.loading) await entry.loading;
    if (entry.stale && !entry.loading) entry.loading = this.load(entry).finally(() => (entry.loading = null));
    if (entry.loading) await entry.loading;
    if (!entry.context) {
      // An id that is not a session is not remembered (anyone may ask for any number).
      if (entry.subscribers.size === 0) this.entries.delete(sessionId);
      return null;
    }
    return entry;
  }

  private async load(entry: Entry): Promise<void> {
    entry.stale = false;
    try {
      const now = this.ctx.clock.now();
      const context = await sessionContext(this.ctx, entry.sessionId);
      entry.context = context;
      if (!context) return;
      const [live, layout] = await Promise.all([repo.liveInventory(this.ctx.db, entry.sessionId, now), sessionLayout(this.ctx, entry.sessionId)]);
      const zones = context.sectors.map((s) => ({
        sector_id: s.id,
        available: Math.max(0, (layout.unitsPerSector.get(s.id) ?? 0) - (live.takenPerSector.get(s.id) ?? 0)),
      }));
      entry.map.apply({ taken: parseTakenSeats(live.seats), zones });
      entry.loadedAt = Date.now();
      const edges = [live.nextHoldExpiry, context.salesStartAt, context.salesEndAt, context.startDatetime]
        .map((d) => d?.getTime() ?? Infinity)
        .filter((t) => t > now.getTime());
      entry.nextChangeAt = edges.length ? Math.min(...edges) : null;
      this.armChangeTimer(entry);
    } catch (err) {
      entry.stale = true;
      throw err;
    }
  }

  /** The sessions' maps are stale (a write here or on another instance). */
  markStale(sessionIds: Iterable<number>): void {
    for (const id of sessionIds) {
      const entry = this.entries.get(id);
      if (!entry) continue;
      entry.stale = true;
      this.schedulePush(entry);
    }
  }

  markAllStale(): void {
    this.markStale([...this.entries.keys()]);
  }

  /** Streams learn of a change at once: the map is re-read shortly and each subscriber told. */
  private schedulePush(entry: Entry): void {
    if (entry.subscribers.size === 0 || entry.pushTimer) return;
    entry.pushTimer = setTimeout(() => {
      entry.pushTimer = null;
      this.fresh(entry.sessionId)
        .then(() => entry.subscribers.forEach((s) => s()))
        .catch(() => this.schedulePush(entry));
    }, PUSH_DELAY_MS);
    entry.pushTimer.unref();
  }

  /** With streams open, a hold expiry or a sales window edge is pushed when it comes. */
  private armChangeTimer(entry: Entry): void {
    if (entry.changeTimer) clearTimeout(entry.changeTimer);
    entry.changeTimer = null;
    if (entry.subscribers.size === 0 || entry.nextChangeAt === null) return;
    const wait = Math.max(0, entry.nextChangeAt - this.ctx.clock.now().getTime()) + 5;
    entry.changeTimer = setTimeout(() => {
      entry.changeTimer = null;
      entry.stale = true;
      this.schedulePush(entry);
    }, Math.min(wait, 2 ** 31 - 1));
    entry.changeTimer.unref();
  }

  subscribe(entry: Entry, subscriber: Subscriber): () => void {
    entry.subscribers.add(subscriber);
    this.armChangeTimer(entry);
    return () => {
      entry.subscribers.delete(subscriber);
      if (entry.subscribers.size > 0) return;
      if (entry.changeTimer) clearTimeout(entry.changeTimer);
      if (entry.pushTimer) clearTimeout(entry.pushTimer);
      entry.changeTimer = entry.pushTimer = null;
    };
  }

  private evictIdle(): void {
    if (this.entries.size <= MAX_SESSIONS) return;
    const idle = [...this.entries.values()].filter((e) => e.subscribers.size === 0).sort((a, b) => a.lastUsed - b.lastUsed);
    for (const e of idle.slice(0, this.entries.size - MAX_SESSIONS)) this.entries.delete(e.sessionId);
  }
}

/** The live maps of one app, told of this instance's writes by its inventory notices. */
export const liveMaps = appSingleton('catalogue.live-maps', (ctx) => {
  const maps = new LiveMaps(ctx);
  onInventoryChanged(ctx, (ids) => maps.markStale(ids));
  return maps;
});

/** A weak ETag names the seats' version and the sale state (which changes with time alone). */
const etagOf = (cursor: string, saleState: SaleState) => `W/"${cursor}.${saleState}"`;

/** The cursor inside an If-None-Match or Last-Event-ID value (the first tag when several). */
export function cursorOfTag(tag: string | undefined): string | undefined {
  const m = tag && /^\s*(?:W\/)?"?([A-Za-z0-9_-]{1,64})/.exec(tag);
  return m ? m[1] : undefined;
}

export interface Availability {
  etag: string;
  entry: Entry;
  /** The body for a client that last saw `since` (a cursor), or a snapshot. */
  body(since: string | undefined): AvailabilityBody;
}

/**
 * The availability of a session for a channel, from memory. 404 like the session detail: an
 * unknown or draft session, one of another event or of an unpublished event, or an event the
 * channel does not sell (D5).
 */
export async function getAvailability(ctx: AppContext, channel: ChannelRecord, eventId: number, sessionId: number): Promise<Availability> {
  const entry = await liveMaps(ctx).fresh(sessionId);
  const context = entry?.context;
  if (!entry || !context || context.status === 'draft' || context.eventStatus !== 'published' || context.eventId !== eventId) throw notFound('Session');
  if (!context.channelIds.map(Number).includes(channel.id)) throw notFound('Event');
  return availabilityOf(ctx, entry);
}

function availabilityOf(ctx: AppContext, entry: Entry): Availability {
  const context = entry.context!;
  const zones = entry.map.current!.zones;
  const saleState = saleStateOf({ ...context, available: zones.reduce((n, z) => n + z.available, 0) }, ctx.clock.now());
  return {
    etag: etagOf(entry.map.cursor!, saleState),
    entry,
    body: (since) => ({ session_id: entry.sessionId, sale_state: saleState, ...windowJson(context), ...entry.map.since(since) }),
  };
}

/**
 * Follows a session for a Server-Sent Events stream: `send` gets each new version (its ETag and
 * the changes since the version sent before), starting from `since` (a snapshot when unknown).
 * Returns the function that stops following.
 */
export function followAvailability(ctx: AppContext, first: Availability, since: string | undefined, send: (etag: string, body: AvailabilityBody) => void): () => void {
  const maps = liveMaps(ctx);
  let lastEtag = first.etag;
  let lastCursor = first.entry.map.cursor!;
  send(first.etag, first.body(since));
  return maps.subscribe(first.entry, () => {
    if (!first.entry.context || !first.entry.map.current) return;
    const now = availabilityOf(ctx, first.entry);
    if (now.etag === lastEtag) return;
    const body = now.body(lastCursor);
    lastEtag = now.etag;
    lastCursor = body.cursor;
    send(now.etag, body);
  });
}

/** Who this app is in its own notifications (it hears them too and must not re-read for them). */
export const instanceId = appSingleton('catalogue.instance-id', () => crypto.randomUUID());

import { ApiError, type ApiClient } from './http.js';
import { solveChallenge, type PowChallenge } from '../../ui/pow.js';
import type { KeyValueStorage } from './persistence.js';
import type { ApiData } from './types.js';

/**
 * The waiting room of the widget's session (D60), without any DOM: the status document (polled
 * with jitter every 2 to 3 s, the same cacheable answer for every buyer), the buyer's ticket and
 * number, and at their turn the pass that every cart create sends as `Queue-Pass`. Ticket and pass
 * are kept in sessionStorage, so that a reload keeps the buyer's place.
 */

/** The status document (`GET /api/queue/v1/sessions/{sessionId}`); `number` only in an answer to a poll naming a `ticket_id`. */
export type QueueDoc = ApiData<'getQueueStatus'>;

interface Stored {
  ticket?: string;
  /** The ticket's id: polls name it until they bring the number (after the draw). */
  ticketId?: string;
  number?: number | null;
  pass?: string;
  expiresAt?: string;
  expired?: boolean;
}

export interface QueueView {
  doc: QueueDoc;
  /** The service's clock minus the browser's, in ms: countdowns follow the service. */
  skew: number;
  joined: boolean;
  number: number | null;
  pass: string | null;
  expiresAt: string | null;
  /** The pass's time is up (or the service refused it as expired). */
  expired: boolean;
  joining: boolean;
  error: string | null;
}

/** What the buyer sees now: which screen of the waiting room, or `admitted` (the map). */
export type QueueStage = 'notOpen' | 'preOpen' | 'inPre' | 'joinNow' | 'drawing' | 'position' | 'admitted' | 'passExpired' | 'ended';

export function queueStage(q: QueueView, now: number): QueueStage {
  const serverNow = now + q.skew;
  if (q.pass && !q.expired && q.expiresAt && Date.parse(q.expiresAt) > serverNow) return 'admitted';
  if (q.pass || q.expired) return 'passExpired';
  const { state } = q.doc;
  if (state === 'ended') return 'ended';
  if (state === 'closed') return 'notOpen';
  if (!q.joined) return state === 'pre_queue' ? 'preOpen' : 'joinNow';
  if (state === 'pre_queue') return 'inPre';
  if (state === 'drawing' || q.number === null) return 'drawing';
  return 'position';
}

/** True while the waiting room keeps the buyer from the map. */
export const queueBlocks = (q: QueueView | null, now: number) => !!q && !['admitted', 'passExpired', 'ended'].includes(queueStage(q, now));

/** sessionStorage when usable, else nothing is kept. */
function sessionStore(): Pick<KeyValueStorage, 'getItem' | 'setItem'> | null {
  try {
    const s = globalThis.sessionStorage;
    return s ?? null;
  } catch {
    return null;
  }
}

export function createQueue(opts: { api: ApiClient; channelSlug: string; sessionId: number; clientId: string; onChange: (view: QueueView | null) => void; storage?: Pick<KeyValueStorage, 'getItem' | 'setItem'> | null }) {
  const { api, sessionId, clientId } = opts;
  const store = opts.storage === undefined ? sessionStore() : opts.storage;
  const key = `taquilla:queue:${opts.channelSlug}:${sessionId}`;
  const path = (suffix = '') => `/${sessionId}${suffix}`;
  let stored: Stored = read();
  let doc: QueueDoc | null = null;
  let skew = 0;
  let joining = false;
  let error: string | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;

  function read(): Stored {
    try {
      return (JSON.parse(store?.getItem(key) ?? '{}') as Stored) ?? {};
    } catch {
      return {};
    }
  }
  function save() {
    try {
      store?.setItem(key, JSON.stringify(stored));
    } catch {
      // private mode: the place lasts as long as the page
    }
  }

  const on = () => !!doc && doc.admission_per_minute !== null;

  function view(): QueueView | null {
    if (!doc || !on()) return null;
    return {
      doc,
      skew,
      joined: !!stored.ticket,
      number: stored.number ?? null,
      pass: stored.pass ?? null,
      expiresAt: stored.expiresAt ?? null,
      expired: !!stored.expired,
      joining,
      error,
    };
  }
  const emit = () => {
    if (!stopped) opts.onChange(view());
  };

  /**
   * After the draw: the ticket's number (the poll naming the ticket brings it; else joining again
   * answers the same ticket), then the pass at its turn.
   */
  async function step() {
    if (!doc || !stored.ticket || stored.pass || stored.expired || doc.state !== 'admitting') return;
    try {
      if (stored.number == null) {
        const again = await api.queue<{ ticket: string; number: number | null }>('POST', path('/join'), { client_id: clientId });
        stored.ticket = again.ticket;
        stored.number = again.number;
        save();
      }
      if (stored.number != null && stored.number <= doc.admitted_through) {
        const got = await api.queue<{ pass: string; expires_at: string }>('POST', path('/pass'), { ticket: stored.ticket });
        stored.pass = got.pass;
        stored.expiresAt = got.expires_at;
        save();
      }
    } catch (err) {
      if (!(err instanceof ApiError)) return;
      if (err.code === 'not_admitted_yet' && typeof err.data?.number === 'number') stored.number = err.data.number;
      else if (err.code === 'queue_pass_invalid') stored.expired = true;
      else if (err.code === 'queue_ticket_invalid') stored = {};
      save();
    }
  }

  async function refresh(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    try {
      // Until the number is known, the poll names the ticket: the answer brings the number once
      // drawn, so the draw costs no extra request per buyer (docs/onsale.md).
      const naming = stored.ticketId && stored.number == null ? `?ticket_id=${encodeURIComponent(stored.ticketId)}` : '';
      doc = await api.queue<QueueDoc>('GET', path(naming));
      skew = Date.parse(doc.server_time) - Date.now();
      if (naming && typeof doc.number === 'number') {
        stored.number = doc.number;
        save();
      }
    } catch {
      // A service without waiting rooms, or the network: the next poll (if any) tries again.
    }
    if (on()) await step();
    emit();
    // With jitter, never more than once every 2 s (D60); not at all once admitted.
    if (!stopped && on() && !stored.pass && !stored.expired && doc!.state !== 'ended') timer = setTimeout(() => void refresh(), 2000 + Math.random() * 1000);
  }

  return {
    refresh,
    /** The pass to send as `Queue-Pass` on a cart create, if the buyer has one. */
    pass: () => stored.pass ?? null,
    /** "Join the queue": the proof of work first when the session asks for one. */
    async join() {
      if (joining || !doc) return;
      joining = true;
      error = null;
      emit();
      try {
        let solution: string | undefined;
        if (doc.challenge === 'proof_of_work') solution = await solveChallenge(await api.queue<PowChallenge>('GET', path('/challenge')));
        const joined = await api.queue<{ ticket: string; ticket_id: string; number: number | null }>('POST', path('/join'), { client_id: clientId, ...(solution ? { challenge_solution: solution } : {}) });
        stored = { ticket: joined.ticket, ticketId: joined.ticket_id, number: joined.number };
        save();
      } catch (err) {
        error = err instanceof Error ? err.message : String(err);
      }
      joining = false;
      await refresh();
    },
    /** A cart create refused the pass (its time is up). */
    passRefused() {
      if (!stored.pass) return;
      stored.expired = true;
      save();
      emit();
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}



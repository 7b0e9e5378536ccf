// The waiting room's client (D60), without any DOM: the one copy the widget and the portal's script
// share (issue 26: "queue client twice"). The status document (polled with jitter every 2 to 3 s, the
// same cacheable answer for every buyer), the buyer's ticket and number, and at their turn the pass
// that every cart create sends as `Queue-Pass`. Ticket and pass are kept in sessionStorage, so that a
// reload keeps the buyer's place (and a new tab of the same browser joins again with the same client
// id, getting the same ticket back). Each screen draws the waiting room its own way from
// `queueScreen`: what to say at which stage, in its language.
import type { operations } from '../clients/typescript/schema.js';
import type { BuyerTextKey } from './texts.js';
import { localeOf } from './format.js';
import type { PowChallenge } from './pow.js';

/** The status document (`GET /api/queue/v1/sessions/{sessionId}`); `number` only in an answer to a poll naming a `ticket_id`. */
export type QueueDoc = operations['getQueueStatus']['responses'][200]['content']['application/json']['data'];

/**
 * A call to the waiting room's public interface (no token): `/api/queue/v1/sessions{path}`; resolves
 * with the envelope's `data`, rejects with an error that carries the envelope's `code` and `data`.
 * The caller's client reads the service's clock off every answer (ui/service-clock.ts), the polls'
 * included: a 304 brings back a stored document with an old `server_time`, but a fresh `Date`.
 */
export type QueueCall = <T>(method: 'GET' | 'POST', path: string, body?: unknown) => Promise<T>;

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

/** `now`: the service's time (ui/service-clock.ts), as in every function below. */
function queueStage(q: QueueView, now: number): QueueStage {
  if (q.pass && !q.expired && q.expiresAt && Date.parse(q.expiresAt) > now) return 'admitted';
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

/**
 * The waiting room's panel is shown, except while the buyer is in their turn with seats in the cart:
 * the cart's countdown is then the one that matters (a pass only opens a new cart), and the pass's
 * beside it would read as a second, different deadline.
 */
export const queuePanelShown = (q: QueueView | null, now: number, itemsInCart: number) => !!q && !(itemsInCart > 0 && queueStage(q, now) === 'admitted');

/**
 * The sales start has passed on the service's clock while the document still says the room is
 * before it: the document changes then (the draw), so a screen asks for it at once rather than at
 * the next poll.
 */
export function queueStartPassed(q: QueueView, now: number): boolean {
  const start = q.doc.sales_start_at ? Date.parse(q.doc.sales_start_at) : NaN;
  return Number.isFinite(start) && now >= start && (q.doc.state === 'pre_queue' || q.doc.state === 'closed');
}

/** The texts of the waiting room (ui/texts.ts), with their `{name}` placeholders filled. */
export type QueueTexts = (key: BuyerTextKey, params?: Record<string, string | number>) => string;

/** The text key each stage says (`queue` + the stage): the portal marks its status with it too. */
export const queueTextKey = (stage: QueueStage) => `queue${stage.charAt(0).toUpperCase()}${stage.slice(1)}` as BuyerTextKey;

/** "1 d 02:03:04", "02:03:04" or "03:04". */
function span(seconds: number, t: QueueTexts): string {
  const s = Math.max(0, Math.round(seconds));
  const d = Math.floor(s / 86400);
  const h = Math.floor(s / 3600) % 24;
  const two = (n: number) => String(n).padStart(2, '0');
  const hms = `${h || d ? `${two(h)}:` : ''}${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
  return d ? `${d} ${t('days')} ${hms}` : hms;
}

/**
 * What the waiting room says now: its stage, the sentence of the stage (countdowns on the service's
 * clock), the line under it (the estimated wait, the browser check, or the last error) and whether
 * "join the queue" is offered.
 */
export function queueScreen(q: QueueView, now: number, t: QueueTexts, lang: string) {
  const stage = queueStage(q, now);
  // The countdown of the stage: to the pass's end once admitted, else to the sales start.
  const end = stage === 'admitted' ? q.expiresAt : q.doc.sales_start_at;
  const left = span(((end ? Date.parse(end) : now) - now) / 1000, t);
  const ahead = Math.max(0, (q.number ?? 0) - q.doc.admitted_through - 1);
  const time = q.doc.opens_at ? new Date(q.doc.opens_at).toLocaleTimeString(localeOf(lang), { hour: '2-digit', minute: '2-digit' }) : '';
  const text = t(queueTextKey(stage), { time, left, number: q.number ?? '', ahead });
  const detail =
    q.error ?? (stage === 'position' ? t('queueWait', { minutes: Math.max(1, Math.ceil(ahead / (q.doc.admission_per_minute ?? 1))) }) : q.joining && q.doc.challenge === 'proof_of_work' ? t('queueSolving') : null);
  return { stage, text, detail, canJoin: stage === 'preOpen' || stage === 'joinNow' };
}

/** sessionStorage when usable, else nothing is kept. */
function sessionStore(): Storage | null {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null;
  }
}

export function createQueue(opts: { call: QueueCall; sessionId: number; clientId: string; storageKey: string; onChange: (view: QueueView | null) => void }) {
  const { call, sessionId, clientId, storageKey: key } = opts;
  const store = sessionStore();
  const path = (suffix = '') => `/${sessionId}${suffix}`;
  let stored: Stored = read();
  let doc: QueueDoc | null = null;
  let joining = false;
  let error: string | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
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
        const again = await call<{ ticket: string; number: number | null }>('POST', path('/join'), { client_id: clientId });
        stored.ticket = again.ticket;
        stored.number = again.number;
        save();
      }
      if (stored.number != null && stored.number <= doc.admitted_through) {
        const got = await call<{ pass: string; expires_at: string }>('POST', path('/pass'), { ticket: stored.ticket });
        stored.pass = got.pass;
        stored.expiresAt = got.expires_at;
        save();
      }
    } catch (err) {
      const { code, data } = err as { code?: string; data?: { number?: unknown } };
      if (code === 'not_admitted_yet' && typeof data?.number === 'number') stored.number = data.number;
      else if (code === 'queue_pass_invalid') stored.expired = true;
      else if (code === 'queue_ticket_invalid') stored = {};
      save();
    }
  }

  async function refresh(): Promise<void> {
    clearTimeout(timer);
    try {
      // Until the number is known, the poll names the ticket: the answer brings the number once
      // drawn, so the draw costs no extra request per buyer (docs/onsale.md).
      const naming = stored.ticketId && stored.number == null ? `?ticket_id=${encodeURIComponent(stored.ticketId)}` : '';
      doc = await call<QueueDoc>('GET', path(naming));
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
        // The solver is loaded only for a session that asks for it (in the portal, a chunk of its own).
        if (doc.challenge === 'proof_of_work') solution = await (await import('./pow.js')).solveChallenge(await call<PowChallenge>('GET', path('/challenge')));
        const joined = await call<{ ticket: string; ticket_id: string; number: number | null }>('POST', path('/join'), { client_id: clientId, ...(solution ? { challenge_solution: solution } : {}) });
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
      clearTimeout(timer);
    },
  };
}

import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { etagMatches } from '../../http/etag.js';
import { serveBeforeRouting } from '../../http/before-routing.js';
import { httpDate } from '../../http/service-date.js';
import { requestObserver } from '../../platform/metrics.js';
import type { AppContext } from '../../app-context.js';
import * as queue from './queue.service.js';

/** What a status poll is answered: 304 when the buyer has this version, else the document. */
export interface PollAnswer {
  status: 200 | 304;
  etag: string;
  /** The `Date` header (the app's clock, src/http/service-date.ts), on the 304 as on the 200: the shortcut answers without Fastify's hooks. */
  date: string;
  /** The JSON (200), or null (304). */
  body: string | null;
}

/** The answer to a poll of `shared` (with the ticket's number when it named one). */
export function pollAnswer(ctx: AppContext, shared: queue.StatusDocument, number: number | null | undefined, ifNoneMatch: string | undefined): PollAnswer {
  const etag = number === undefined ? shared.etag : queue.statusNumberEtag(shared, number);
  const date = httpDate(ctx.clock.now().getTime());
  if (etagMatches(ifNoneMatch, etag)) return { status: 304, etag, date, body: null };
  const tail = number === undefined ? queue.STATUS_DOCUMENT_TAIL : queue.statusNumberTail(number);
  return { status: 200, etag, date, body: shared.head + queue.statusServerTime(ctx) + tail };
}

/** The minute's count of answered polls, for the one log line a minute that replaces a line per poll. */
export interface PollCount {
  answered: number;
  notModified: number;
}

/** The status document's media type, as the route and the shortcut both send it. */
export const JSON_UTF8 = 'application/json; charset=utf-8';

/** A bare poll's path, with a session id as the route's schema accepts it written canonically. */
const BARE_POLL = /^\/api\/queue\/v1\/sessions\/([1-9][0-9]{0,9})$/;
const MAX_ID = 2_147_483_647;
/** Headers of the 200 answer that belong to one answer, not to every answer of the route. */
const PER_ANSWER = new Set(['etag', 'date', 'content-length', 'content-type']);

/**
 * The bare status poll (`GET /api/queue/v1/sessions/{id}`, no query: nearly every poll of an
 * on-sale, 20,000 a second for 100,000 waiting buyers) answered on the server's request event,
 * before Fastify: the same bytes the route sends, without the routing, hooks, per-request logger and
 * reply object that were most of a poll's cost (docs/onsale.md). Declined (then Fastify answers, as
 * for every other request) until the route has answered one bare poll (whose headers it then
 * reuses: the route's and the deployment's security and CORS headers, the same for every poll),
 * when the document must be built first, for any other form of the URL, while the instance refuses
 * work as overloaded, and once it closes.
 *
 * Returns the hook that records the route's headers from its answer of a bare poll.
 */
export function registerPollShortcut(app: FastifyInstance, count: PollCount): (headers: Record<string, number | string | string[] | undefined>) => void {
  let common: OutgoingHttpHeaders | null = null;
  let open = true;
  app.addHook('preClose', async () => {
    open = false;
  });
  const observe = requestObserver('/api/queue/v1/sessions/:sessionId');
  serveBeforeRouting(app, (req, res) => {
    if (common === null || !open || req.method !== 'GET') return false;
    const path = BARE_POLL.exec(req.url ?? '');
    if (path === null) return false;
    const sessionId = Number(path[1]);
    if (sessionId > MAX_ID || app.isOverloaded()) return false;
    const shared = queue.statusDocumentNow(app.ctx, sessionId);
    if (shared === null) return false;
    const started = performance.now();
    const answer = pollAnswer(app.ctx, shared, undefined, req.headers['if-none-match']);
    count.answered++;
    if (answer.body === null) {
      count.notModified++;
      res.writeHead(304, { ...common, etag: answer.etag, date: answer.date });
      res.end();
    } else {
      res.writeHead(200, { ...common, etag: answer.etag, date: answer.date, 'content-type': JSON_UTF8, 'content-length': Buffer.byteLength(answer.body) });
      res.end(answer.body);
    }
    observe('GET', answer.status, (performance.now() - started) / 1000);
    return true;
  });
  return (headers) => {
    if (common !== null) return;
    common = Object.fromEntries(Object.entries(headers).filter(([name, value]) => value !== undefined && !PER_ANSWER.has(name.toLowerCase())));
  };
}

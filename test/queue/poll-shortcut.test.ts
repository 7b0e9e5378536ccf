import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs } from '../admin/admin-helpers.js';
import { buildTestApp, isPostgres, type TestApp } from '../helpers.js';
import { demoSession, type DemoSession } from '../orders/cart-helpers.js';

// The bare status poll answered before Fastify (src/modules/queue/queue.polls.ts): over a real
// socket (app.inject never passes through it), the same answer as the route's, 200 and 304, and
// Fastify not reached by it (with LOG_LEVEL=debug the route logs every poll it answers: the
// shortcut's answers leave no line); every other form of the URL still reaches the route.

const METRICS_TOKEN = 'poll-shortcut-metrics-token-0123456789';
let t: TestApp;
let base: string;
let s: DemoSession;
/** The session's bare poll, and the same poll with the id written otherwise (which the route alone answers). */
let path: string;
let padded: string;
const lines: string[] = [];
/** The waiting room's paths that Fastify answered since `since` lines (its access log, one line each). */
const answeredByFastify = (since: number) =>
  lines
    .slice(since)
    .map((l) => JSON.parse(l) as { msg: string; req?: { path: string } })
    .filter((l) => l.msg === 'request completed' && l.req!.path.startsWith('/api/queue/'))
    .map((l) => l.req!.path);

beforeAll(async () => {
  t = await buildTestApp({ env: { METRICS_TOKEN, LOG_LEVEL: 'debug' }, logStream: { write: (line) => void lines.push(line) } });
  s = await demoSession(t, 1);
  path = `/api/queue/v1/sessions/${s.sessionId}`;
  padded = `/api/queue/v1/sessions/0${s.sessionId}`;
  const start = Math.ceil(t.clock.now().getTime() / 1000) * 1000 + 10 * 60_000;
  const admin = await apiAs(t, 'poll-shortcut@taquilla.test');
  const saved = await admin.patch(`/sessions/${s.sessionId}`, { sales_start_at: new Date(start).toISOString(), queue: { enabled: true, admission_per_minute: 60 } });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
}, 120_000);
afterAll(() => t.close());

const poll = (url: string, headers: Record<string, string> = {}) => fetch(`${base}${url}`, { headers });
/** A response's headers without those of the connection (Date, Connection, Keep-Alive). */
const headersOf = (r: { headers: Headers }) => Object.fromEntries([...r.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)));
const pollsCounted = async (status: string) => {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('taquilla_http_request_duration_seconds_count{') && l.includes('route="/api/queue/v1/sessions/:sessionId",method="GET"') && l.includes(`status_class="${status}"`));
  return line ? Number(line.split(' ').pop()) : 0;
};

describe(`the bare status poll before Fastify (${isPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('answers after the route answered one: the same status, headers and document, without Fastify\'s hooks; counted in the metrics', async () => {
    const first = await poll(path);
    expect(first.status).toBe(200);
    const counted = await pollsCounted('2xx');
    const mark = lines.length;
    const second = await poll(path);
    expect(second.status).toBe(200);
    // Then one the shortcut declines (the id written with a leading zero): its line is the only one since the mark.
    expect((await poll(padded)).status).toBe(200);
    await expect.poll(() => answeredByFastify(mark)).toEqual([padded]);
    expect(headersOf(second)).toEqual(headersOf(first));
    const [a, b] = [await first.json(), await second.json()];
    expect(b).toEqual(a);
    expect(b).toMatchObject({ status: 200, success: true, message: 'Queue status', data: { session_id: s.sessionId, state: 'pre_queue' } });
    // And what the route itself answers now (app.inject goes straight to Fastify).
    const routed = await t.app.inject({ url: path });
    expect(routed.body).toBe(JSON.stringify(b));
    // The shortcut's poll, the declined one and the injected one.
    expect(await pollsCounted('2xx')).toBe(counted + 3);
  });

  it('answers 304 to the ETag, with the headers of the route\'s 304', async () => {
    // The app's clock two minutes behind Node's (still in the pre-queue): the Date headers below must follow the app's.
    t.clock.set(new Date(t.clock.now().getTime() - 120_000));
    const etag = (await poll(path)).headers.get('etag')!;
    const mark = lines.length;
    const fast = await poll(path, { 'if-none-match': etag });
    expect(fast.status).toBe(304);
    expect(await fast.text()).toBe('');
    // The route's own 304, through Fastify: a form of the URL the shortcut does not take.
    const routed = await poll(padded, { 'if-none-match': etag });
    expect(routed.status).toBe(304);
    await expect.poll(() => answeredByFastify(mark)).toEqual([padded]);
    expect(headersOf(fast)).toEqual(headersOf(routed));
    // Both say the service's clock (the app's), not Node's own Date.
    for (const r of [fast, routed]) expect(r.headers.get('date')).toBe(new Date(Math.floor(t.clock.now().getTime() / 1000) * 1000).toUTCString());
    expect((await poll(path, { 'if-none-match': 'W/"another"' })).status).toBe(200);
  });

  it('leaves every other form of the URL to the route: a ticket named, a HEAD, ids the schema refuses or writes otherwise, an unknown session', async () => {
    await poll(path);
    const mark = lines.length;
    const named = await poll(`${path}?ticket_id=unknown`);
    expect(named.status).toBe(200);
    expect(await named.json()).toMatchObject({ data: { session_id: s.sessionId, number: null } });
    expect((await fetch(`${base}${path}`, { method: 'HEAD' })).status).toBe(200);
    const refused = await poll('/api/queue/v1/sessions/0');
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ success: false, code: 'validation_failed' });
    expect((await poll('/api/queue/v1/sessions/2147483648')).status).toBe(422);
    expect(await (await poll(padded)).json()).toMatchObject({ data: { session_id: s.sessionId } });
    const unknown = await poll('/api/queue/v1/sessions/999999');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ status: 404, success: false });
    // The log's path leaves out the query string.
    await expect.poll(() => answeredByFastify(mark)).toEqual([
      path,
      path,
      '/api/queue/v1/sessions/0',
      '/api/queue/v1/sessions/2147483648',
      padded,
      '/api/queue/v1/sessions/999999',
    ]);
  });
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import zlib from 'node:zlib';
import { buildTestApp, type TestApp } from '../helpers.js';
import { bulkTickets } from './bulk-tickets.js';
import { demoSessions, makeDevice, makeList } from './checkin-helpers.js';

// A stadium's list (D54): 50,000 tickets download in pages of 5,000, complete, in id order, under
// 3 MB compressed. bench/checkin.bench.ts measures the time.

const N = 50_000;
let t: TestApp;
let listId: number;
let token: string;

beforeAll(async () => {
  t = await buildTestApp();
  const sessionId = (await demoSessions(t.ctx))[0]!.id;
  await bulkTickets(t.ctx.db, { sessionId, n: N, currency: t.config.currency, tag: 'dl' });
  listId = (await makeList(t, { name: 'Stadium', session_ids: [sessionId] })).id;
  token = (await makeDevice(t, 'Gate', [listId])).token;
}, 600_000);
afterAll(() => t?.close());

it('pages through 50,000 tickets: each once, in order, under 3 MB gzip', async () => {
  const ids: number[] = [];
  let cursor = '';
  let compressed = 0;
  let pages = 0;
  for (;;) {
    const res = await t.app.inject({
      url: `/api/checkin/v1/lists/${listId}/tickets?limit=5000${cursor ? `&cursor=${cursor}` : ''}`,
      headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    compressed += res.rawPayload.length;
    const page = JSON.parse(zlib.gunzipSync(res.rawPayload).toString());
    pages++;
    for (const ticket of page.tickets) ids.push(ticket.id);
    cursor = page.next_cursor;
    if (!page.has_more) break;
  }
  expect(ids.length).toBeGreaterThanOrEqual(N);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(pages).toBe(Math.ceil(ids.length / 5000));
  expect(compressed).toBeLessThan(3 * 1024 * 1024);
  console.log(`50,000-ticket list: ${pages} pages, ${(compressed / 1024 / 1024).toFixed(2)} MB gzip`);
}, 600_000);

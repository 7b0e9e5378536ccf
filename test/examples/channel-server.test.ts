import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { bearer, buildTestApp, tokenFor, type TestApp } from '../helpers.js';
import { count, createPendingOrder } from '../checkout/fixtures.js';
import { queryRows } from '../../src/db/client.js';

// The example model B/D channel server (examples/channel-server/server.ts), run as its own
// process against a real Taquilla listening on a random port.
let t: TestApp;
const children: ChildProcess[] = [];
let base: string;
let baseD: string;

async function startChannelServer(taquillaUrl: string, env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('examples/channel-server/server.ts')], {
    env: { ...process.env, TAQUILLA_URL: taquillaUrl, ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/localhost:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`channel server exited with ${code}: ${out}`)));
  });
}

beforeAll(async () => {
  t = await buildTestApp();
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = await startChannelServer(address, { CHANNEL_SLUG: 'demo-b', SERVER_KEY: 'sk_demo_b' });
  // Model D with no SERVER_KEY: the example defaults to the demo server key sk_demo_d (D43).
  baseD = await startChannelServer(address, { CHANNEL_SLUG: 'demo-d' });
}, 120_000); // building the app with the demo catalogue is slow on a busy machine
afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  await t.close();
});

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

/** The example's own pay call (its JSON API), for Marta López. */
const payAsMarta = (server: string, orderToken: string) =>
  fetch(`${server}/api/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ order_token: orderToken, name: 'Marta', surname: 'López', email: 'marta@example.com' }),
  });

describe('example channel server (model B)', () => {
  it('shows the order read from the public portal, then pays and confirms from its own server', async () => {
    const o = await createPendingOrder(t.ctx, { channel: 'demo-b', seats: 2 });
    const checkout = await fetch(`${base}/checkout?order_token=${o.token}`);
    expect(checkout.status).toBe(200);
    const html = await checkout.text();
    expect(html).toContain(o.reference);
    expect(html).toContain('63,00'); // 2 x (30.00 + 1.50)
    expect(html).toContain(`name="order_token" value="${o.token}"`);

    const paid = await fetch(`${base}/checkout`, form({ order_token: o.token, name: 'Marta', surname: 'López', email: 'marta@example.com', phone: '' }));
    expect(paid.status).toBe(200);
    const done = await paid.text();
    const links = [...done.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    expect(links).toHaveLength(2);
    for (const link of links) expect(link).toMatch(/\/api\/tickets\/[A-Za-z0-9]+\.pdf\?expires=\d+&signature=/);

    const [order] = await queryRows<{ status: string; transaction_id: string; email: string }>(
      t.ctx.db,
      sql`SELECT o.status, o.transaction_id, c.email FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ${o.id}`,
    );
    expect(order).toMatchObject({ status: 'completed', email: 'marta@example.com' });
    expect(order!.transaction_id).toMatch(/^demo-/);
    // model B: the service e-mails the tickets
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM email_outbox WHERE order_id = ${o.id}`)).toBe(1);

    // a completed order is not offered for payment again; confirming again is harmless (D22)
    expect((await fetch(`${base}/checkout?order_token=${o.token}`)).status).toBe(409);
    const again = await payAsMarta(base, o.token);
    expect(again.status).toBe(200);
    const json = await again.json();
    expect(json.reference).toBe(o.reference);
    expect(json.ticket_pdf_urls.map((u: string) => new URL(u).pathname)).toEqual(links.map((u) => new URL(u).pathname));
  });

  it('reports Taquilla validation errors and unknown orders', async () => {
    const o = await createPendingOrder(t.ctx, { channel: 'demo-b' });
    const bad = await fetch(`${base}/checkout`, form({ order_token: o.token, name: 'X', surname: 'Y', email: 'not-an-email' }));
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('email');
    expect((await fetch(`${base}/checkout?order_token=00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    expect((await fetch(`${base}/checkout?order_token=<script>`)).status).toBe(404);
    // an order of another channel is not found through demo-b's portal read
    const ofD = await createPendingOrder(t.ctx, { channel: 'demo-d' });
    expect((await fetch(`${base}/checkout?order_token=${ofD.token}`)).status).toBe(404);
  });
});

describe('example channel server (model D)', () => {
  it('confirms with its server key, where the page\'s widget key alone is refused', async () => {
    const o = await createPendingOrder(t.ctx, { channel: 'demo-d', seats: 1 });
    // What a buyer holding only the page's widget key can do: build the cart, never confirm (D40).
    const widgetToken = await tokenFor(t.app, 'demo-d', 'wk_demo_d', 'hostile-buyer');
    const hostile = await t.app.inject({
      method: 'POST',
      url: `/api/sales-channel/v1/demo-d/es/orders/${o.token}/confirm`,
      headers: bearer(widgetToken),
      payload: { name: 'Eve', surname: 'X', email: 'eve@example.com', amount: o.total / 100 },
    });
    expect(hostile.statusCode).toBe(403);
    expect(hostile.json().code).toBe('server_credential_required');

    const paid = await payAsMarta(baseD, o.token);
    expect(paid.status).toBe(200);
    const json = await paid.json();
    expect(json.ticket_pdf_urls).toHaveLength(1);
    const [order] = await queryRows<{ status: string }>(t.ctx.db, sql`SELECT status FROM orders WHERE id = ${o.id}`);
    expect(order!.status).toBe('completed');
    // model D: the channel sends its own e-mail (D24, integration policy)
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM email_outbox WHERE order_id = ${o.id}`)).toBe(0);
  });
});

import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { sweepExpiredOrders } from '../../src/modules/orders/orders.service.js';
import { deliverDueWebhooks, nextAttemptAt, RETENTION_MS, RETRY_DELAYS_MS, sweepOldWebhookEvents } from '../../src/modules/webhooks/webhooks.delivery.js';
import { enqueueWebhookEvent } from '../../src/modules/webhooks/webhooks.outbox.js';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/client.js';
import { bearer, buildTestApp, DEMO, isPostgres, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { buyer, confirmUrl, createPendingOrder } from '../checkout/fixtures.js';
import { adminWithOrganiserB, api, apiAs } from '../admin/admin-helpers.js';
import { startReceiver, type Received } from './receiver.js';
import { createHeldOrder, postSandboxNotification, sandboxNotification } from '../portal/fixtures.js';
import { demoSessions, makeGate, makeList, sellTickets, startSessionIn } from '../checkin/checkin-helpers.js';

let t: TestApp;
let admin: ReturnType<typeof api>;
let promoterB: ReturnType<typeof api>;
const tokens: Record<string, string> = {};
const ALL = ['order.completed', 'order.cancelled', 'order.expired', 'order.refunded', 'ticket.checked_in'];

const channelId = async (slug: string) => (await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sales_channels WHERE slug = ${slug}`))[0]!.id;

beforeAll(async () => {
  t = await buildTestApp();
  let organiserB: number;
  ({ admin, organiserB } = await adminWithOrganiserB(t.ctx, t.app));
  promoterB = await apiAs(t, 'promoter-b@taquilla.test', organiserB);
  tokens.d = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key);
  tokens.dServer = await serverTokenFor(t.app, DEMO.d.slug, DEMO.d.serverKey);
}, 180_000);
afterAll(() => t.close());

/** Registers an endpoint through the admin API; returns its id and the secret shown once. */
async function register(slug: string, url: string, eventTypes = ALL) {
  const res = await admin.post(`/channels/${await channelId(slug)}/webhooks`, { url, event_types: eventTypes });
  expect(res.status).toBe(201);
  return { id: res.body.data.id as number, secret: res.body.data.secret as string, channel: await channelId(slug) };
}

const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  }) as { type: string; timestamp: string; data: Record<string, unknown> };

/** A model D purchase confirmed by the channel's server. */
async function confirmed() {
  const o = await createPendingOrder(t.ctx, { channel: DEMO.d.slug, seats: 1 });
  const res = await t.app.inject({ method: 'POST', url: confirmUrl(DEMO.d.slug, o.token), headers: bearer(tokens.dServer!), payload: { ...buyer, amount: o.total / 100 } });
  expect(res.statusCode).toBe(200);
  return o;
}

/**
 * After passes side by side: every delivery of the endpoint was claimed and attempted exactly once
 * (by one worker), no event reached the receiver twice, and the passes counted every success. On a
 * heavily loaded machine a request can time out (logged with its error, retried later); the rest
 * is delivered.
 */
async function expectEachSentOnce(endpointId: number, events: number, counts: number[], received: Received[]) {
  const rows = await queryRows<{ id: number; n: number; ok: boolean | null; errors: string | null }>(
    t.ctx.db,
    sql`SELECT d.id, count(a.id)::int AS n, bool_or(a.status_code = 200) AS ok, string_agg(a.error, '; ') AS errors
        FROM webhook_deliveries d LEFT JOIN webhook_attempts a ON a.delivery_id = d.id WHERE d.endpoint_id = ${endpointId} GROUP BY d.id`,
  );
  expect(rows).toHaveLength(events);
  expect(rows.filter((r) => r.n !== 1)).toEqual([]);
  const delivered = rows.filter((r) => r.ok).length;
  expect(counts.reduce((a, n) => a + n, 0)).toBe(delivered);
  expect(rows.filter((r) => !r.ok && !r.errors)).toEqual([]);
  if (delivered < events) console.warn(`${events - delivered} attempts failed on this machine: ${rows.find((r) => !r.ok)?.errors}`);
  expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(received.length);
  expect(received.length).toBeGreaterThanOrEqual(delivered);
}

/** Everything due now, and later retries out of the way: passes at now until nothing is left. */
const drain = () => deliverDueWebhooks(t.ctx, { now: t.clock.now() });

describe('the admin API of webhook endpoints', () => {
  it('creates with a secret shown once, lists, edits, rotates, deletes; another organiser gets 404', async () => {
    const demoB = await channelId(DEMO.b.slug);
    const created = await admin.post(`/channels/${demoB}/webhooks`, { url: 'https://example.com/hook', event_types: ['order.completed'], description: 'ERP' });
    expect(created.status).toBe(201);
    const { id, secret } = created.body.data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body.data).toMatchObject({ channel_id: demoB, url: 'https://example.com/hook', event_types: ['order.completed'], enabled: true, disabled_reason: null });
    // the secret is never shown again, nor stored in clear
    const one = await admin.get(`/channels/${demoB}/webhooks/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.data.secret).toBeUndefined();
    expect(JSON.stringify((await admin.get(`/channels/${demoB}/webhooks`)).body)).not.toContain(secret);
    const [stored] = await queryRows<{ secret_sealed: string }>(t.ctx.db, sql`SELECT secret_sealed FROM webhook_endpoints WHERE id = ${id}`);
    expect(stored!.secret_sealed).not.toContain(secret.slice(6, 20));

    const edited = await admin.patch(`/channels/${demoB}/webhooks/${id}`, { event_types: ['order.completed', 'order.refunded'], enabled: false });
    expect(edited.status).toBe(200);
    expect(edited.body.data).toMatchObject({ event_types: ['order.completed', 'order.refunded'], enabled: false, disabled_reason: 'manual' });
    const rotated = await admin.post(`/channels/${demoB}/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(secret);

    // bad input: a clear 422, never a 500
    const bad = await admin.post(`/channels/${demoB}/webhooks`, { url: 'ftp://example.com', event_types: ['order.shipped'] });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ success: false, code: 'validation_failed' });
    expect(Object.keys(bad.body.errors).sort()).toEqual(['event_types.0', 'url'].sort());
    expect((await admin.post(`/channels/${demoB}/webhooks`, { url: 'javascript:alert(1)', event_types: ['order.completed'] })).status).toBe(422);

    // promoter isolation: another organiser's channel and endpoint are not found
    for (const r of [
      await promoterB.get(`/channels/${demoB}/webhooks`),
      await promoterB.get(`/channels/${demoB}/webhooks/${id}`),
      await promoterB.patch(`/channels/${demoB}/webhooks/${id}`, { enabled: true }),
      await promoterB.post(`/channels/${demoB}/webhooks/${id}/rotate-secret`),
      await promoterB.get(`/channels/${demoB}/webhooks/${id}/deliveries`),
      await promoterB.del(`/channels/${demoB}/webhooks/${id}`),
    ]) expect(r).toMatchObject({ status: 404, body: { code: 'not_found' } });
    const channelB = (await promoterB.get('/channels')).body.data[0].id;
    // an endpoint id under the wrong channel is not found either
    expect(await promoterB.get(`/channels/${channelB}/webhooks/${id}`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect((await admin.get(`/channels/${demoB}/webhooks/${id}`)).body.data.enabled).toBe(false);

    expect((await admin.del(`/channels/${demoB}/webhooks/${id}`)).status).toBe(200);
    expect(await admin.get(`/channels/${demoB}/webhooks/${id}`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    const [audit] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM audit_log WHERE target_type = 'webhook_endpoint' AND target_id = ${String(id)}`);
    expect(audit!.n).toBe(4);
  });
});

describe('delivery', () => {
  it('each event type arrives once per change, signed so that standardwebhooks verifies it and rejects a tampered copy', async () => {
    const receiver = await startReceiver();
    try {
      const b = await register(DEMO.d.slug, receiver.url);
      const a = await register(DEMO.a.slug, receiver.url, ['order.completed']);
      // completion by confirm (model D)
      const completed = await confirmed();
      // completion by card payment (model A, the portal's sandbox provider)
      const held = await createHeldOrder(t, DEMO.a.slug);
      const start = await t.app.inject({ method: 'POST', url: `/api/portal/${DEMO.a.slug}/es/checkout`, payload: { order_token: held.token, ...buyer } });
      const paymentId = start.json().data.payment_id;
      const paid = await postSandboxNotification(t, sandboxNotification(t, paymentId, 'succeeded', held.total));
      expect(paid.statusCode).toBe(200);
      // cancellation
      const cancelled = await createPendingOrder(t.ctx, { channel: DEMO.d.slug });
      const del = await t.app.inject({ method: 'DELETE', url: `/api/sales-channel/v1/${DEMO.d.slug}/es/orders/${cancelled.token}`, headers: bearer(tokens.d!) });
      expect(del.statusCode).toBe(200);
      // expiry by the sweep
      const expired = await createPendingOrder(t.ctx, { channel: DEMO.d.slug, ttlMs: 1000 });
      t.clock.advance(2000);
      expect(await sweepExpiredOrders(t.ctx)).toBeGreaterThanOrEqual(1);
      // refund
      expect((await admin.post(`/orders/${completed.reference}/refund`, { reason: 'test' })).status).toBe(201);
      // check-in (the helper's future call)
      await t.ctx.db.transaction((tx) => enqueueWebhookEvent(tx, { channelId: b.channel, type: 'ticket.checked_in', data: { code: 'T-1', status: 'used' }, at: t.clock.now() }));

      expect(await drain()).toBe(6);
      expect(await drain()).toBe(0);
      expect(receiver.received).toHaveLength(6);
      const byType = new Map<string, { type: string; data: Record<string, unknown> }[]>();
      for (const r of receiver.received) {
        const secret = r.body.includes(held.token) ? a.secret : b.secret;
        const body = verify(secret, r);
        byType.set(body.type, [...(byType.get(body.type) ?? []), body]);
        // a tampered copy is refused by the same verifier
        expect(() => verify(secret, { ...r, body: r.body.replace('"data":{', '"data":{"x":1,') })).toThrow();
        expect(() => verify(b.secret === secret ? a.secret : b.secret, r)).toThrow();
        expect(r.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
        expect(r.headers['content-type']).toBe('application/json');
      }
      const only = (type: string) => {
        expect(byType.get(type)).toHaveLength(type === 'order.completed' ? 2 : 1);
        return byType.get(type)!;
      };
      expect(only('order.completed').map((e) => e.data.order_token).sort()).toEqual([completed.token, held.token].sort());
      expect(only('order.completed').find((e) => e.data.order_token === completed.token)!.data).toMatchObject({
        reference: completed.reference,
        status: 'completed',
        total_amount: completed.total / 100,
        events: [{ sessions: [{ items: [expect.objectContaining({ rate_name: expect.any(String) })] }] }],
      });
      expect(only('order.cancelled')[0]!.data).toMatchObject({ order_token: cancelled.token, reference: cancelled.reference, status: 'cancelled' });
      expect(only('order.expired')[0]!.data).toMatchObject({ order_token: expired.token, status: 'expired' });
      expect(only('order.refunded')[0]!.data).toMatchObject({ order_token: completed.token, reference: completed.reference, refund: { reference: `${completed.reference}-R`, total_amount: -completed.total / 100 } });
      expect(only('ticket.checked_in')[0]!.data).toEqual({ code: 'T-1', status: 'used' });
      await admin.del(`/channels/${b.channel}/webhooks/${b.id}`);
      await admin.del(`/channels/${a.channel}/webhooks/${a.id}`);
    } finally {
      await receiver.close();
    }
  });

  it('an event whose transaction rolls back is never written nor sent', async () => {
    const receiver = await startReceiver();
    try {
      const b = await register(DEMO.b.slug, receiver.url);
      const o = await createPendingOrder(t.ctx, { channel: DEMO.b.slug });
      await expect(
        t.ctx.db.transaction(async (tx) => {
          await enqueueWebhookEvent(tx, { channelId: b.channel, type: 'ticket.checked_in', data: { code: 'X' }, at: t.clock.now() });
          await tx.execute(sql`UPDATE orders SET status = 'cancelled', updated_at = ${t.clock.now()} WHERE id = ${o.id}`);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await drain()).toBe(0);
      expect(receiver.received).toHaveLength(0);
      const [n] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = ${b.id}`);
      expect(n!.n).toBe(0);
      await admin.del(`/channels/${b.channel}/webhooks/${b.id}`);
    } finally {
      await receiver.close();
    }
  });

  it('a receiver answering 500 three times gets the event at the 4th attempt with the same webhook-id; the log shows each attempt', async () => {
    const receiver = await startReceiver((_r, i) => (i < 3 ? 500 : 204));
    try {
      const b = await register(DEMO.b.slug, receiver.url, ['ticket.checked_in']);
      await t.ctx.db.transaction((tx) => enqueueWebhookEvent(tx, { channelId: b.channel, type: 'ticket.checked_in', data: { code: 'R' }, at: t.clock.now() }));
      const start = t.clock.now().getTime();
      let delivered = 0;
      // passes at the latest moment each retry can be due (the waits plus their jitter)
      for (const at of [0, 6_000, 6_000 + 6 * 60_000, 6_000 + 6 * 60_000 + 36 * 60_000]) {
        delivered += await deliverDueWebhooks(t.ctx, { now: new Date(start + at) });
        // nothing is sent again before its time
        expect(await deliverDueWebhooks(t.ctx, { now: new Date(start + at + 1000) })).toBe(0);
      }
      expect(delivered).toBe(1);
      expect(receiver.received).toHaveLength(4);
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
      expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
      const log = await admin.get(`/channels/${b.channel}/webhooks/${b.id}/deliveries`);
      expect(log.status).toBe(200);
      const [d] = log.body.data;
      expect(d).toMatchObject({ status: 'delivered', type: 'ticket.checked_in', webhook_id: receiver.received[0]!.headers['webhook-id'], next_attempt_at: null });
      expect(d.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 500, 204]);
      expect(d.attempts[0].response_excerpt.length).toBeLessThanOrEqual(1024);
      expect(d.attempts[0].response_excerpt).toMatch(/^answer 500 x+$/);

      // redelivery by hand: a new attempt with the same webhook-id and body
      const again = await admin.post(`/channels/${b.channel}/webhooks/${b.id}/deliveries/${d.id}/redeliver`);
      expect(again.status).toBe(200);
      expect(again.body.data).toMatchObject({ status_code: 204, delivered: true });
      expect(receiver.received).toHaveLength(5);
      expect(receiver.received[4]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
      verify(b.secret, receiver.received[4]!);
      const after = (await admin.get(`/channels/${b.channel}/webhooks/${b.id}/deliveries`)).body.data[0];
      expect(after.attempts.map((a: { manual: boolean }) => a.manual)).toEqual([false, false, false, false, true]);
      expect(await promoterB.post(`/channels/${b.channel}/webhooks/${b.id}/deliveries/${d.id}/redeliver`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
      await admin.del(`/channels/${b.channel}/webhooks/${b.id}`);
    } finally {
      await receiver.close();
    }
  });

  it('retries for more than 3 days, then gives up; a receiver that is down is logged with the error', async () => {
    expect(RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBeGreaterThan(3 * 24 * 3600_000);
    expect(nextAttemptAt(new Date(0), 1, () => 0)!.getTime()).toBe(5000);
    expect(nextAttemptAt(new Date(0), 1, () => 1)!.getTime()).toBe(6000);
    expect(nextAttemptAt(new Date(0), RETRY_DELAYS_MS.length + 1)).toBeNull();

    // a port nobody listens on: taken, then freed
    const closed = await startReceiver();
    await closed.close();
    const b = await register(DEMO.b.slug, closed.url, ['ticket.checked_in']);
    await t.ctx.db.transaction((tx) => enqueueWebhookEvent(tx, { channelId: b.channel, type: 'ticket.checked_in', data: { code: 'Z' }, at: t.clock.now() }));
    let at = t.clock.now().getTime();
    for (let i = 0; i <= RETRY_DELAYS_MS.length; i++) {
      await deliverDueWebhooks(t.ctx, { now: new Date(at) });
      at += (RETRY_DELAYS_MS[i] ?? 0) * 1.2 + 1000;
    }
    const [d] = (await admin.get(`/channels/${b.channel}/webhooks/${b.id}/deliveries`)).body.data;
    expect(d.status).toBe('failed');
    expect(d.attempts).toHaveLength(RETRY_DELAYS_MS.length + 1);
    expect(d.attempts[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/ECONNREFUSED/) });
    expect(new Date(d.attempts.at(-1).attempted_at).getTime() - new Date(d.attempts[0].attempted_at).getTime()).toBeGreaterThan(3 * 24 * 3600_000);
    await admin.del(`/channels/${b.channel}/webhooks/${b.id}`);
  });

  it('a 410 disables the endpoint: nothing more is sent to it until it is enabled again', async () => {
    const receiver = await startReceiver((_r, i) => (i === 0 ? 410 : 200));
    try {
      const b = await register(DEMO.b.slug, receiver.url, ['ticket.checked_in']);
      const enqueue = () => t.ctx.db.transaction((tx) => enqueueWebhookEvent(tx, { channelId: b.channel, type: 'ticket.checked_in', data: {}, at: t.clock.now() }));
      await enqueue();
      expect(await drain()).toBe(0);
      const ep = (await admin.get(`/channels/${b.channel}/webhooks/${b.id}`)).body.data;
      expect(ep).toMatchObject({ enabled: false, disabled_reason: 'gone' });
      expect((await admin.get(`/channels/${b.channel}/webhooks/${b.id}/deliveries`)).body.data[0].status).toBe('failed');
      // a disabled endpoint gets no new deliveries
      expect(await enqueue()).toBeNull();
      t.clock.advance(3600_000);
      expect(await drain()).toBe(0);
      expect(receiver.received).toHaveLength(1);
      await admin.patch(`/channels/${b.channel}/webhooks/${b.id}`, { enabled: true });
      await enqueue();
      expect(await drain()).toBe(1);
      await admin.del(`/channels/${b.channel}/webhooks/${b.id}`);
    } finally {
      await receiver.close();
    }
  });

  it(`many passes in parallel deliver each event exactly once (${isPostgres ? 'PostgreSQL pool' : 'PGlite'})`, async () => {
    const receiver = await startReceiver();
    try {
      const b = await register(DEMO.b.slug, receiver.url, ['ticket.checked_in']);
      const events = 150;
      await t.ctx.db.transaction(async (tx) => {
        for (let i = 0; i < events; i++) await enqueueWebhookEvent(tx, { channelId: b.channel, type: 'ticket.checked_in', data: { i }, at: t.clock.now() });
      });
      const now = t.clock.now();
      const counts = await Promise.all(Array.from({ length: 8 }, () => deliverDueWebhooks(t.ctx, { now })));
      await expectEachSentOnce(b.id, events, counts, receiver.received);
      await admin.del(`/channels/${b.channel}/webhooks/${b.id}`);
    } finally {
      await receiver.close();
    }
  });
});

describe('retention', () => {
  it('deletes events older than 30 days with their deliveries and attempts, but not one still pending', async () => {
    const receiver = await startReceiver((r) => (r.body.includes('"keep"') ? 500 : 200));
    try {
      const b = await register(DEMO.b.slug, receiver.url, ['ticket.checked_in']);
      const at = t.clock.now();
      const sent = await t.ctx.db.transaction((tx) => enqueueWebhookEvent(tx, { channelId: b.channel, type: 'ticket.checked_in', data: { n: 'sent' }, at }));
      const kept = await t.ctx.db.transaction((tx) => enqueueWebhookEvent(tx, { channelId: b.channel, type: 'ticket.checked_in', data: { n: 'keep' }, at }));
      await deliverDueWebhooks(t.ctx, { now: at });
      const events = async () => (await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id::int AS id FROM webhook_events WHERE id IN (${sent}, ${kept}) ORDER BY id`)).map((r) => r.id);
      // (earlier tests' events, older, may go now)
      await sweepOldWebhookEvents(t.ctx, { now: new Date(at.getTime() + RETENTION_MS - 60_000) });
      expect(await events()).toEqual([sent, kept]);
      // the one still pending (its retries are not over) stays; the delivered one goes
      expect(await sweepOldWebhookEvents(t.ctx, { now: new Date(at.getTime() + RETENTION_MS + 60_000) })).toBeGreaterThanOrEqual(1);
      expect(await events()).toEqual([kept]);
      const [left] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = ${sent}`);
      expect(left!.n).toBe(0);
      await admin.del(`/channels/${b.channel}/webhooks/${b.id}`);
    } finally {
      await receiver.close();
    }
  });
});

describe('the outbox under concurrent confirms', () => {
  it('many model D confirms at once: every one answers 200 and writes exactly one event and one delivery', async () => {
    const b = await register(DEMO.d.slug, 'http://127.0.0.1:9/not-delivered-here', ['order.completed']);
    const orders = [];
    for (let i = 0; i < 30; i++) orders.push(await createPendingOrder(t.ctx, { channel: DEMO.d.slug, sessionIndex: 1 }));
    const answers = await Promise.all(
      orders.map((o) => t.app.inject({ method: 'POST', url: confirmUrl(DEMO.d.slug, o.token), headers: bearer(tokens.dServer!), payload: { ...buyer, amount: o.total / 100 } })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(orders.map(() => 200));
    // and a repeat of each (D22) writes nothing more
    await Promise.all(orders.map((o) => t.app.inject({ method: 'POST', url: confirmUrl(DEMO.d.slug, o.token), headers: bearer(tokens.dServer!), payload: { ...buyer, amount: o.total / 100 } })));
    const rows = await queryRows<{ reference: string; n: number }>(
      t.ctx.db,
      sql`SELECT (v.order_rows->>'reference') AS reference, count(*)::int AS n FROM webhook_deliveries d JOIN webhook_events v ON v.id = d.event_id
          WHERE d.endpoint_id = ${b.id} GROUP BY 1`,
    );
    expect(rows.map((r) => r.reference).sort()).toEqual(orders.map((o) => o.reference).sort());
    expect(rows.every((r) => r.n === 1)).toBe(true);
    await admin.del(`/channels/${b.channel}/webhooks/${b.id}`);
    const [left] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = ${b.id}`);
    expect(left!.n).toBe(0);
  });
});

describe.skipIf(!isPostgres)('two app instances on one PostgreSQL database', () => {
  it('deliver each event exactly once, each with its own pool, many passes side by side', async () => {
    const receiver = await startReceiver();
    const database = await openDatabase({ url: t.db.url!, poolSize: 10 });
    const second = await buildApp({ config: t.config, database, clock: t.clock, logger: false });
    try {
      const b = await register(DEMO.b.slug, receiver.url, ['ticket.checked_in']);
      // six batches' worth, so that each of the six passes' first claims finds work
      const events = 600;
      await t.ctx.db.transaction(async (tx) => {
        for (let i = 0; i < events; i++) await enqueueWebhookEvent(tx, { channelId: b.channel, type: 'ticket.checked_in', data: { i }, at: t.clock.now() });
      });
      await second.ctx.db.execute(sql`SELECT 1`); // its pool connected, like a running instance's
      const now = t.clock.now();
      const counts = await Promise.all([t.ctx, second.ctx, t.ctx, second.ctx, t.ctx, second.ctx].map((ctx) => deliverDueWebhooks(ctx, { now })));
      await expectEachSentOnce(b.id, events, counts, receiver.received);
      // both instances took part
      expect(counts[0]! + counts[2]! + counts[4]!).toBeGreaterThan(0);
      expect(counts[1]! + counts[3]! + counts[5]!).toBeGreaterThan(0);
      await admin.del(`/channels/${b.channel}/webhooks/${b.id}`);
    } finally {
      await second.close();
      await database.close();
      await receiver.close();
    }
  });
});

describe('check-in (issue 18)', () => {
  it('an entry at the door sends ticket.checked_in once, with the ticket; a second scan sends nothing', async () => {
    const receiver = await startReceiver();
    try {
      const hook = await register(DEMO.d.slug, receiver.url, ['ticket.checked_in']);
      const sessions = await demoSessions(t.ctx);
      await startSessionIn(t, sessions[0]!.id, 3_600_000);
      const list = await makeList(t, { name: 'Hook door', session_ids: [sessions[0]!.id] });
      const gate = await makeGate(t, 'Hook gate', [list.id]);
      const { tickets } = await sellTickets(t, { sessionId: sessions[0]!.id });
      expect((await gate.scan(list.id, { secret: tickets[0]!.secret })).json().result).toBe('valid');
      expect((await gate.scan(list.id, { secret: tickets[0]!.secret })).json().result).toBe('already_used');
      await drain();
      const events = receiver.received.map((r) => verify(hook.secret, r));
      expect(events.map((e) => e.type)).toEqual(['ticket.checked_in']);
      expect(events[0]!.data).toMatchObject({ ticket_id: tickets[0]!.id, session_id: sessions[0]!.id, list_id: list.id, device_name: 'Hook gate' });
      // A 2xx delivery ticks the channel's pre-production checklist (docs/preproduction.md).
      const steps = await queryRows<{ step: string }>(t.ctx.db, sql`SELECT step FROM channel_integration_steps WHERE channel_id = ${hook.channel} AND step = 'webhook_verified'`);
      expect(steps).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});

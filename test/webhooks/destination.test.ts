import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import {
  internalDestinationProblem,
  isInternalAddress,
  useDestinationLookup,
  type ResolvedAddress,
} from '../../src/modules/webhooks/webhooks.destination.js';
import { createEndpointAs, listDeliveriesFor } from '../../src/modules/webhooks/webhooks.service.js';
import { enqueueWebhookEvent } from '../../src/modules/webhooks/webhooks.outbox.js';
import { deliverDueWebhooks } from '../../src/modules/webhooks/webhooks.delivery.js';
import { CLI_ACTOR } from '../../src/platform/actor.js';
import { buildTestApp, type TestApp } from '../helpers.js';
import { startReceiver } from './receiver.js';

// Production and pre-production send no webhook inside the deployment's network (docs/webhooks.md).
describe('webhook destinations', () => {
  it('refuses loopback, private, link-local (cloud metadata) and unspecified addresses, v4 and v6', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.5', '192.168.1.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:10.0.0.1', '::ffff:127.0.0.1'])
      expect(isInternalAddress(a), a).toBe(true);
    for (const a of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:8.8.8.8']) expect(isInternalAddress(a), a).toBe(false);
  });

  it('checks what the host resolves to', async () => {
    expect(await internalDestinationProblem('http://127.0.0.1:8080/x')).toMatch(/inside the network/);
    expect(await internalDestinationProblem('http://[::1]/x')).toMatch(/inside the network/);
    expect(await internalDestinationProblem('http://localhost/x')).toMatch(/inside the network/);
    expect(await internalDestinationProblem('http://8.8.8.8/x')).toBeNull();
    expect(await internalDestinationProblem('https://no-such-host.invalid/x')).toMatch(/cannot resolve/);
  });
});

describe('a pre-production deployment', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    t = await buildTestApp({ env: { APP_ENV: 'preproduction', SIGNING_SECRET: 'a-pre-production-secret-of-40-characters!' } });
    receiver = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });
  afterEach(() => useDestinationLookup(null));

  /** A new endpoint of channel 1 at `url` and one event for it; answers the endpoint's id. */
  async function endpointWithEvent(url: string): Promise<number> {
    const endpoint = await createEndpointAs(t.ctx, CLI_ACTOR, 1, { url, event_types: ['ticket.checked_in'] });
    await t.ctx.db.transaction((tx) => enqueueWebhookEvent(tx, { channelId: 1, type: 'ticket.checked_in', data: {}, at: t.clock.now() }));
    return endpoint.id;
  }
  /** Sends what is due, then disables the endpoint so that the next test's pass leaves it alone. */
  async function deliverFor(endpointId: number, ctx = t.ctx) {
    await deliverDueWebhooks(ctx, { now: t.clock.now() });
    const deliveries = await listDeliveriesFor(t.ctx, CLI_ACTOR, 1, endpointId);
    await t.ctx.db.execute(sql`UPDATE webhook_endpoints SET enabled = false WHERE id = ${endpointId}`);
    return deliveries;
  }

  it('logs an attempt to an internal address as refused and sends nothing', async () => {
    const endpointId = await endpointWithEvent(receiver.url);
    const [d] = await deliverFor(endpointId);
    expect(receiver.received).toHaveLength(0);
    expect(d!.attempts[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/^refused: 127\.0\.0\.1 resolves to 127\.0\.0\.1/) });
    expect(d!.status).toBe('pending');
  });

  it('connects where it checked: a name that answers a public address, then 127.0.0.1 (rebinding), never reaches the local receiver', async () => {
    const port = new URL(receiver.url).port;
    // The check's question gets a public address (TEST-NET-2, unreachable); every later question
    // gets the receiver's loopback address, as a rebinding name server would answer.
    const asked: string[] = [];
    useDestinationLookup(async (host) => {
      asked.push(host);
      return [{ address: asked.length === 1 ? '198.51.100.7' : '127.0.0.1', family: 4 }] satisfies ResolvedAddress[];
    });
    const endpointId = await endpointWithEvent(`http://rebind.example:${port}/hooks`);
    const [d] = await deliverFor(endpointId);
    // One question per attempt: the connection asked nothing more, it went to 198.51.100.7.
    expect(asked).toEqual(['rebind.example']);
    expect(receiver.received).toHaveLength(0);
    expect(d!.attempts[0]!.status_code).not.toBe(200);
    expect(d!.status).toBe('pending');
    // The next attempt asks again, and the loopback answer is refused before any connection.
    await t.ctx.db.execute(sql`UPDATE webhook_endpoints SET enabled = true WHERE id = ${endpointId}`);
    await t.ctx.db.execute(sql`UPDATE webhook_deliveries SET next_attempt_at = ${t.clock.now()} WHERE endpoint_id = ${endpointId}`);
    const [again] = await deliverFor(endpointId);
    expect(asked).toEqual(['rebind.example', 'rebind.example']);
    expect(receiver.received).toHaveLength(0);
    expect(again!.attempts.map((a) => a.error)).toContainEqual(expect.stringMatching(/^refused: rebind\.example resolves to 127\.0\.0\.1/));
  }, 30_000);

  it('in development and test a local receiver is reached, at the address resolved once, with the name in the Host header', async () => {
    const port = new URL(receiver.url).port;
    const asked: string[] = [];
    useDestinationLookup(async (host) => {
      asked.push(host);
      return [{ address: '127.0.0.1', family: 4 }];
    });
    const endpointId = await endpointWithEvent(`http://hooks.partner.example:${port}/hooks`);
    const before = receiver.received.length;
    const [d] = await deliverFor(endpointId, { ...t.ctx, config: { ...t.ctx.config, appEnv: 'development' } });
    expect(d!.status).toBe('delivered');
    expect(asked).toEqual(['hooks.partner.example']);
    expect(receiver.received).toHaveLength(before + 1);
    expect(receiver.received.at(-1)!.headers.host).toBe(`hooks.partner.example:${port}`);
  });
});

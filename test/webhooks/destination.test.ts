import { describe, expect, it } from 'vitest';
import { internalDestinationProblem, isInternalAddress } from '../../src/modules/webhooks/webhooks.destination.js';
import { createEndpointAs, listDeliveriesFor } from '../../src/modules/webhooks/webhooks.service.js';
import { enqueueWebhookEvent } from '../../src/modules/webhooks/webhooks.outbox.js';
import { deliverDueWebhooks } from '../../src/modules/webhooks/webhooks.delivery.js';
import { CLI_ACTOR } from '../../src/platform/actor.js';
import { buildTestApp } from '../helpers.js';
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
  it('logs an attempt to an internal address as refused and sends nothing', async () => {
    const t = await buildTestApp({ env: { APP_ENV: 'preproduction', SIGNING_SECRET: 'a-pre-production-secret-of-40-characters!' } });
    const receiver = await startReceiver();
    try {
      const endpoint = await createEndpointAs(t.ctx, CLI_ACTOR, 1, { url: receiver.url, event_types: ['ticket.checked_in'] });
      await t.ctx.db.transaction((tx) => enqueueWebhookEvent(tx, { channelId: 1, type: 'ticket.checked_in', data: {}, at: t.clock.now() }));
      expect(await deliverDueWebhooks(t.ctx, { now: t.clock.now() })).toBe(0);
      expect(receiver.received).toHaveLength(0);
      const [d] = await listDeliveriesFor(t.ctx, CLI_ACTOR, 1, endpoint.id);
      expect(d!.attempts[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/^refused: 127\.0\.0\.1 resolves to 127\.0\.0\.1/) });
      expect(d!.status).toBe('pending');
    } finally {
      await receiver.close();
      await t.close();
    }
  });
});

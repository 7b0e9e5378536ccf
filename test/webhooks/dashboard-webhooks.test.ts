import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { deliverDueWebhooks } from '../../src/modules/webhooks/webhooks.delivery.js';
import { bearer, buildTestApp, DEMO, serverTokenFor, type TestApp } from '../helpers.js';
import { buyer, confirmUrl, createPendingOrder } from '../checkout/fixtures.js';
import { account, adminWithOrganiserB } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';
import { startReceiver } from './receiver.js';

// The webhook pages of the dashboard (D51): the "done when" of issue 17 — register an endpoint for
// demo-d, buy in model D, the receiver gets order.completed with a valid signature — then the
// attempt log and a redelivery by hand.

let t: TestApp;
let demoD = 0;
beforeAll(async () => {
  t = await buildTestApp();
  const { organiserB } = await adminWithOrganiserB(t.ctx, t.app);
  await account(t.ctx, 'promoter-b@taquilla.test', organiserB);
  await account(t.ctx, 'promoter-a@taquilla.test', 1);
  demoD = (await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sales_channels WHERE slug = ${DEMO.d.slug}`))[0]!.id;
}, 180_000);
afterAll(() => t.close());

const decode = (s: string) => s.replace(/&#43;/g, '+').replace(/&#x2F;|&#47;/g, '/').replace(/&#61;/g, '=').replace(/&amp;/g, '&');

describe('dashboard: webhooks of a channel', () => {
  it('registers an endpoint (secret shown once, with copy), delivers a model D purchase, shows the attempts and redelivers by hand', async () => {
    const receiver = await startReceiver((_r, i) => (i === 0 ? 503 : 200));
    try {
      const promoter = new DashboardClient(t.app);
      expect((await promoter.login('promoter-a@taquilla.test')).statusCode).toBe(303);
      const channelPage = await promoter.get(`/admin/channels/${demoD}`);
      expect(channelPage.body).toContain(`href="/admin/channels/${demoD}/webhooks"`);
      const list = await promoter.get(`/admin/channels/${demoD}/webhooks`);
      expect(list.statusCode).toBe(200);
      expect(list.body).toContain('Add an endpoint');

      const created = await promoter.post(`/admin/channels/${demoD}/webhooks`, { url: receiver.url, description: 'shop', event_types: ['order.completed', 'order.refunded'] });
      expect(created.statusCode).toBe(201);
      expect(created.body).toContain('This is the only time the secret is shown');
      expect(created.body).toContain('data-copy-target="new-secret"');
      const secret = decode(/id="new-secret" readonly value="([^"]+)"/.exec(created.body)![1]!);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
      // never again: not on the list, not on the endpoint's page
      const after = await promoter.get(`/admin/channels/${demoD}/webhooks`);
      expect(after.body).toContain(receiver.url);
      expect(after.body).not.toContain(secret.slice(6, 30));
      const endpointId = Number(new RegExp(`/admin/channels/${demoD}/webhooks/(\\d+)"`).exec(after.body)![1]);

      // a model D purchase, confirmed by the channel's server
      const o = await createPendingOrder(t.ctx, { channel: DEMO.d.slug });
      const server = await serverTokenFor(t.app, DEMO.d.slug, DEMO.d.serverKey);
      const confirm = await t.app.inject({ method: 'POST', url: confirmUrl(DEMO.d.slug, o.token), headers: bearer(server), payload: { ...buyer, amount: o.total / 100 } });
      expect(confirm.statusCode).toBe(200);
      await deliverDueWebhooks(t.ctx, { now: t.clock.now() }); // answered 503
      await deliverDueWebhooks(t.ctx, { now: new Date(t.clock.now().getTime() + 10_000) }); // the retry: 200
      expect(receiver.received).toHaveLength(2);
      const body = new Webhook(secret).verify(receiver.received[1]!.body, receiver.received[1]!.headers as Record<string, string>) as { type: string; data: { reference: string } };
      expect(body).toMatchObject({ type: 'order.completed', data: { reference: o.reference } });

      const detail = await promoter.get(`/admin/channels/${demoD}/webhooks/${endpointId}`);
      expect(detail.statusCode).toBe(200);
      const webhookId = String(receiver.received[0]!.headers['webhook-id']);
      expect(detail.body).toContain(webhookId);
      expect(detail.body).toMatch(/<strong>503<\/strong>/);
      expect(detail.body).toMatch(/<strong>200<\/strong>/);
      expect(detail.body).toContain('delivered');
      const redeliver = new RegExp(`action="(/admin/channels/${demoD}/webhooks/${endpointId}/deliveries/\\d+/redeliver)"`).exec(detail.body)![1]!;
      const res = await promoter.post(redeliver);
      expect(res.statusCode).toBe(303);
      expect(receiver.received).toHaveLength(3);
      expect(receiver.received[2]!.headers['webhook-id']).toBe(webhookId);
      const again = await promoter.get(res.headers.location as string);
      expect(again.body).toContain('Sent again');
      expect(again.body).toContain('by hand');

      // disable, rotate (a new secret shown once), bad input, delete
      expect((await promoter.post(`/admin/channels/${demoD}/webhooks/${endpointId}/disable`)).statusCode).toBe(303);
      expect((await promoter.get(`/admin/channels/${demoD}/webhooks`)).body).toContain('badge off');
      const rotated = await promoter.post(`/admin/channels/${demoD}/webhooks/${endpointId}/rotate`);
      expect(rotated.statusCode).toBe(200);
      expect(decode(/id="new-secret" readonly value="([^"]+)"/.exec(rotated.body)![1]!)).not.toBe(secret);
      const bad = await promoter.post(`/admin/channels/${demoD}/webhooks`, { url: 'ftp://x', event_types: [] });
      expect(bad.statusCode).toBe(422);
      expect(bad.body).toContain('event_types');

      // another organiser's promoter reaches none of it
      const other = new DashboardClient(t.app);
      await other.login('promoter-b@taquilla.test');
      expect((await other.get(`/admin/channels/${demoD}/webhooks`)).statusCode).toBe(404);
      expect((await other.get(`/admin/channels/${demoD}/webhooks/${endpointId}`)).statusCode).toBe(404);
      expect((await other.post(redeliver)).statusCode).toBe(404);
      expect((await other.post(`/admin/channels/${demoD}/webhooks/${endpointId}/delete`)).statusCode).toBe(404);
      expect(receiver.received).toHaveLength(3);

      expect((await promoter.post(`/admin/channels/${demoD}/webhooks/${endpointId}/delete`)).statusCode).toBe(303);
      expect((await promoter.get(`/admin/channels/${demoD}/webhooks`)).body).not.toContain(receiver.url);
    } finally {
      await receiver.close();
    }
  });
});

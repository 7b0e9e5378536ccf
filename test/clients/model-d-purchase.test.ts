import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTaquillaClient } from '../../clients/typescript/index.js';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp, DEMO, serverTokenFor, type TestApp } from '../helpers.js';

// The typed client (clients/typescript) drives a whole model D purchase against a real Taquilla
// listening on a port: token, config, events, session, create order, voucher, confirm, report.
let t: TestApp;
let baseUrl: string;

beforeAll(async () => {
  t = await buildTestApp();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const slug = DEMO.d.slug;
const lang = 'es';

describe('typed client, model D', () => {
  it('buys end to end: token, config, events, session, order, voucher, confirm, report', async () => {
    const taquilla = createTaquillaClient({ baseUrl, salesChannelSlug: slug, serverKey: DEMO.d.serverKey, clientId: 'client-test' });
    const channel = { salesChannelSlug: slug, lang };

    const config = await taquilla.GET('/api/sales-channel/v1/{salesChannelSlug}/config', { params: { path: { salesChannelSlug: slug } } });
    expect(config.data?.data.integration_mode).toBe('widget_external_payment');

    const events = await taquilla.GET('/api/sales-channel/v1/{salesChannelSlug}/{lang}/events', { params: { path: channel } });
    const event = events.data!.data[0]!;
    const sessionId = event.sessions[0]!.id;
    const session = await taquilla.GET('/api/sales-channel/v1/{salesChannelSlug}/{lang}/events/{eventId}/sessions/{sessionId}', {
      params: { path: { ...channel, eventId: event.id, sessionId } },
    });
    const seat = session.data!.data.elements.seats.find((s) => s.status === 'available')!;

    const created = await taquilla.POST('/api/sales-channel/v1/{salesChannelSlug}/{lang}/orders', {
      params: { path: channel },
      body: { session_seat_id: seat.id, rate_id: seat.rates[0]!.id },
    });
    expect(created.response.status).toBe(201);
    const orderToken = created.data!.data.order_token;
    const order = { ...channel, orderToken };

    const discounted = await taquilla.POST('/api/sales-channel/v1/{salesChannelSlug}/{lang}/orders/{orderToken}/apply-voucher', {
      params: { path: order },
      body: { code: 'DEMO10' },
    });
    expect(discounted.error).toBeUndefined();
    const total = discounted.data!.data.total_amount;
    expect(total).toBeLessThan(created.data!.data.total_amount);

    // A typed error answer: the D4 envelope with its code.
    const wrong = await taquilla.POST('/api/sales-channel/v1/{salesChannelSlug}/{lang}/orders/{orderToken}/confirm', {
      params: { path: order },
      body: { amount: total + 1, name: 'Ana', surname: 'García', email: 'ana@example.com' },
    });
    expect(wrong.response.status).toBe(422);
    expect(wrong.error?.code).toBe('amount_mismatch');

    const confirmed = await taquilla.POST('/api/sales-channel/v1/{salesChannelSlug}/{lang}/orders/{orderToken}/confirm', {
      params: { path: order },
      body: { amount: total, transaction_id: 'pay-1', payment_method: 'card', name: 'Ana', surname: 'García', email: 'ana@example.com' },
    });
    expect(confirmed.response.status).toBe(200);
    expect(confirmed.data!.data.ticket_pdf_urls).toHaveLength(1);
    const reference = confirmed.data!.data.reference;

    const report = await taquilla.GET('/api/sales-channel/v1/{salesChannelSlug}/{lang}/reports/sales', {
      params: { path: channel, query: { event_id: event.id } },
    });
    const row = report.data!.data.data.find((r) => r.order_reference === reference);
    expect(row).toMatchObject({ type: 'purchase', status: 'completed', total_amount: total });

    const [stored] = await queryRows<{ status: string }>(t.ctx.db, sql`SELECT status FROM orders WHERE order_token = ${orderToken}`);
    expect(stored!.status).toBe('completed');
  });

  it('renews its token once after a 401 and repeats the request, body included', async () => {
    const taquilla = createTaquillaClient({ baseUrl, salesChannelSlug: slug, serverKey: DEMO.d.serverKey, clientId: 'renewal-test' });
    const first = await taquilla.token();
    // Another token of the same client_id revokes the client's (D38): its next call meets a 401.
    await serverTokenFor(t.app, slug, DEMO.d.serverKey, 'renewal-test');
    const channel = { salesChannelSlug: slug, lang };
    const events = await taquilla.GET('/api/sales-channel/v1/{salesChannelSlug}/{lang}/events', { params: { path: channel } });
    const event = events.data!.data[0]!;
    expect(events.response.status).toBe(200);
    const second = await taquilla.token();
    expect(second).not.toBe(first);

    // A POST repeated after the renewal keeps its body.
    await serverTokenFor(t.app, slug, DEMO.d.serverKey, 'renewal-test');
    const session = await taquilla.GET('/api/sales-channel/v1/{salesChannelSlug}/{lang}/events/{eventId}/sessions/{sessionId}', {
      params: { path: { ...channel, eventId: event.id, sessionId: event.sessions[0]!.id } },
    });
    expect(await taquilla.token()).not.toBe(second);
    await serverTokenFor(t.app, slug, DEMO.d.serverKey, 'renewal-test');
    const seat = session.data!.data.elements.seats.find((s) => s.status === 'available')!;
    const created = await taquilla.POST('/api/sales-channel/v1/{salesChannelSlug}/{lang}/orders', {
      params: { path: channel },
      body: { session_seat_id: seat.id, rate_id: seat.rates[0]!.id },
    });
    expect(created.response.status).toBe(201);
    expect(created.data!.data.events[0]!.sessions[0]!.items[0]!.session_seat_id).toBe(seat.id);
  });

  it('gives up after one renewal: a wrong key is an error, not a loop', async () => {
    const taquilla = createTaquillaClient({ baseUrl, salesChannelSlug: slug, serverKey: 'sk_wrong_key_of_no_channel_at_all_000000000', clientId: 'x' });
    await expect(
      taquilla.GET('/api/sales-channel/v1/{salesChannelSlug}/config', { params: { path: { salesChannelSlug: slug } } }),
    ).rejects.toThrow(/Taquilla token: 401/);
    expect(() => createTaquillaClient({ baseUrl, salesChannelSlug: slug })).toThrow(/exactly one/);
  });
});

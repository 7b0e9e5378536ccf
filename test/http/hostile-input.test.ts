import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, ADMIN_API, api, otherOrganiserDocument } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';
import { bearer, buildTestApp, DEMO, serverTokenFor, type TestApp } from '../helpers.js';
import { createHeldOrder } from '../portal/fixtures.js';

// D47, one regression test per class of the issue 14 fuzzer findings (each answered 500 before),
// and the envelope of the errors the router and Node's parser meet before any route.

let t: TestApp;
// demo-d's server token: confirm and the report need the server key (D40), the other routes take it too.
let channelServer: Record<string, string>;
let admin: ReturnType<typeof api>;
let adminHeaders: Record<string, string>;
const B2B = '/api/sales-channel/v1/demo-d';

beforeAll(async () => {
  t = await buildTestApp({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '100000' } });
  channelServer = bearer(await serverTokenFor(t.app, DEMO.d.slug));
  const token = (await account(t.ctx, 'hostile-admin@taquilla.test')).token;
  admin = api(t.app, token);
  adminHeaders = bearer(token);
}, 180_000);
afterAll(() => t?.close());

const invalid = (res: { statusCode: number; json(): unknown }, field: string, message?: string) => {
  expect(res.statusCode).toBe(422);
  const body = res.json() as { code: string; errors: Record<string, string[]> };
  expect(body).toMatchObject({ status: 422, success: false, code: 'validation_failed', message: 'The given data was invalid' });
  expect(Object.keys(body.errors)).toContain(field);
  if (message) expect(body.errors[field]).toContain(message);
};

describe('Infinity accepted as an integer', () => {
  it.each([
    ['B2B path id', `${B2B}/es/events/Infinity`, 'eventId'],
    ['B2B path id, negative', `${B2B}/es/events/-Infinity/sessions`, 'eventId'],
    ['report event_id', `${B2B}/es/reports/sales?event_id=Infinity`, 'event_id'],
    ['report event_ids[]', `${B2B}/es/reports/sales?event_ids[]=1&event_ids[]=Infinity`, 'event_ids[].1'],
  ])('%s: 422', async (_name, url, field) => {
    invalid(await t.app.inject({ url, headers: channelServer }), field, 'must be a finite number');
  });

  it.each([
    ['admin path id', '/events/Infinity', 'eventId'],
    ['admin before_id', '/orders?before_id=Infinity', 'before_id'],
    ['admin limit', '/audit-log?limit=Infinity', 'limit'],
    ['admin channel_id', '/orders?channel_id=-Infinity', 'channel_id'],
  ])('%s: 422', async (_name, url, field) => {
    const res = await t.app.inject({ url: `${ADMIN_API}${url}`, headers: adminHeaders });
    invalid(res, field, 'must be a finite number');
  });

  // Ajv refuses a non-finite number it did not coerce itself; the input guard covers free-form fields.
  it('1e400 in a JSON body (Infinity once parsed): 422, for an integer, a decimal amount and a free-form field', async () => {
    const held = await createHeldOrder(t, DEMO.d.slug);
    const post = (path: string, payload: string) =>
      t.app.inject({ method: 'POST', url: `${B2B}/es/orders/${held.token}${path}`, headers: { ...channelServer, 'content-type': 'application/json' }, payload });
    invalid(await post('/items', '{"session_seat_id": 1e400, "rate_id": 1}'), 'session_seat_id');
    const confirm = await post('/confirm', '{"amount": 1e400, "name": "Ana", "surname": "Pérez", "email": "ana@example.com"}');
    invalid(confirm, 'amount');
    const session = (await admin.get(`/events/${(await admin.get('/events')).body.data[0].id}`)).body.data.sessions[0].id as number;
    const rate = await t.app.inject({
      method: 'POST',
      url: `${ADMIN_API}/sessions/${session}/rates`,
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      payload: '{"name": "R", "price": 1, "meta": {"seats": 1e400}}',
    });
    invalid(rate, 'meta.seats', 'must be a finite number');
  });
});

describe('integers past 32 bits', () => {
  it('admin before_id=99999999999999999999: 422', async () => {
    invalid(await t.app.inject({ url: `${ADMIN_API}/orders?before_id=99999999999999999999`, headers: adminHeaders }), 'before_id');
  });

  it.each([2 ** 31, 2 ** 53 + 1, 1e308])('voucher max_uses of %d: 422', async (maxUses) => {
    const res = await admin.post('/vouchers', { organiser_id: 1, code: 'BIG', kind: 'fixed', value: 1, max_uses: maxUses });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toContain('max_uses');
  });

  it.each([
    ['vouchers.0.max_uses', (d: typeof otherOrganiserDocument) => ({ ...d, vouchers: [{ ...d.vouchers[0]!, max_uses: 2 ** 31 }] })],
    ['channels.0.cart_ttl_seconds', (d: typeof otherOrganiserDocument) => ({ ...d, channels: [{ ...d.channels[0]!, cart_ttl_seconds: 2 ** 53 + 1 }] })],
  ])('catalogue import %s past its bound: 422, nothing imported', async (field, change) => {
    const res = await admin.post('/catalogue/import', change(otherOrganiserDocument));
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.errors)).toContain(field.split('.').pop());
    expect((await admin.get('/organisers')).body.data.map((o: { name: string }) => o.name)).not.toContain('Producciones B');
  });

  it('a path id past 2^31 - 1 that cannot exist: 422 with the bound', async () => {
    invalid(await t.app.inject({ url: `${B2B}/es/events/2147483648`, headers: channelServer }), 'eventId', 'must be <= 2147483647');
  });
});

describe('found by the fuzz test after the merge of issues 13 and 14', () => {
  it('a lone surrogate ("\\ud800") in a JSON string: 422, nothing stored', async () => {
    const res = await t.app.inject({ method: 'PATCH', url: `${ADMIN_API}/events/1`, headers: adminHeaders, payload: { names: { es: '\ud800' } } });
    invalid(res, 'names.es', 'must be well-formed Unicode text (no lone surrogate)');
    const key = await t.app.inject({ method: 'PATCH', url: `${ADMIN_API}/events/1`, headers: { ...adminHeaders, 'content-type': 'application/json' }, payload: '{"names": {"\\udc00": "x"}}' });
    expect(key.statusCode).toBe(422);
  });

  it('a voucher for an organiser that does not exist: 422 on organiser_id', async () => {
    const payload = { organiser_id: 2_000_000_000, code: 'NOORG', kind: 'percent', value: 10 };
    const res = await t.app.inject({ method: 'POST', url: `${ADMIN_API}/vouchers`, headers: adminHeaders, payload });
    invalid(res, 'organiser_id', 'unknown organiser 2000000000');
  });
});

describe('a NUL character in a string', () => {
  it.each(['name', 'surname', 'phone', 'transaction_id', 'payment_method'])('confirm %s: 422', async (field) => {
    const held = await createHeldOrder(t, DEMO.d.slug);
    const payload = { amount: held.total / 100, name: 'Ana', surname: 'Pérez', email: 'ana@example.com', [field]: 'a\u0000b' };
    const res = await t.app.inject({ method: 'POST', url: `${B2B}/es/orders/${held.token}/confirm`, headers: channelServer, payload });
    invalid(res, field, 'must not contain the NUL character');
    // Nothing was written: the order is still pending.
    expect((await t.app.inject({ url: `${B2B}/es/orders/${held.token}`, headers: channelServer })).json().data.status).toBe('pending');
  });

  it("the token's slug: 422", async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/sales-channel/v1/auth/token',
      payload: { sales_channel_slug: 'demo-d\u0000', widget_key: DEMO.d.key },
    });
    invalid(res, 'sales_channel_slug');
  });

  it('portal checkout order_token: 422', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/portal/demo-a/es/checkout', payload: { order_token: 'abc\u0000def' } });
    // The portal API answers in the page's language (docs/errors.md); the code and the field key stay.
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ status: 422, success: false, code: 'validation_failed', message: 'Revisa los datos marcados.' });
    expect(Object.keys(res.json().errors)).toContain('order_token');
  });

  it('admin names and refund reason: 422', async () => {
    const organiser = await admin.post('/organisers', { name: 'Nul\u0000Org' });
    expect(organiser.status).toBe(422);
    expect(organiser.body.errors.name).toContain('must not contain the NUL character');
    const refund = await admin.post('/orders/NOPE/refund', { reason: 'x\u0000y' });
    expect(refund.status).toBe(422);
    expect(refund.body.errors.reason).toContain('must not contain the NUL character');
  });

  it('%00 in a refund reference (the path): 422', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${ADMIN_API}/orders/%00/refund`, headers: adminHeaders, payload: { reason: 'test' } });
    invalid(res, 'reference', 'must not contain the NUL character');
  });

  it('a NUL in a key of a free-form object (rate meta): 422', async () => {
    const session = (await admin.get('/events')).body.data[0].id as number;
    const detail = (await admin.get(`/events/${session}`)).body.data;
    const res = await admin.post(`/sessions/${detail.sessions[0].id}/rates`, { name: 'R', price: 1, meta: { 'k\u0000': 'v' } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toContain('meta.k\u0000');
  });
});

describe('errors met before any route, in the envelope', () => {
  it.each(['/api/nothing', '/api/x/y', '/api/portal/nothing', '/api/sales-channel/v2/demo-d/config'])('unknown %s: 404 route_not_found', async (url) => {
    const res = await t.app.inject({ url });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toMatchObject({ status: 404, success: false, code: 'route_not_found' });
  });

  it('a path segment past maxParamLength: 414 uri_too_long', async () => {
    const res = await t.app.inject({ url: `/api/sales-channel/v1/${'a'.repeat(300)}/config`, headers: channelServer });
    expect(res.statusCode).toBe(414);
    expect(res.json()).toEqual({ status: 414, success: false, code: 'uri_too_long', message: 'A path segment of the URL is too long' });
  });

  it('broken percent-encoding in the path: 400 bad_request', async () => {
    const res = await t.app.inject({ url: `${B2B}/es/events/%E0%A4%A`, headers: channelServer });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, success: false, code: 'bad_request' });
  });

  describe('over a real socket (Node parser errors)', () => {
    let port: number;
    beforeAll(async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      port = (t.app.server.address() as AddressInfo).port;
    });

    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.end(request));
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString()));
        socket.on('close', () => resolve(data));
        socket.on('error', reject);
      });
    const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));

    it('headers over the limit: 431 headers_too_large', async () => {
      const response = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(response).toMatch(/^HTTP\/1\.1 431 /);
      expect(bodyOf(response)).toEqual({ status: 431, success: false, code: 'headers_too_large', message: 'The request line and headers are too large' });
    });

    it('a URL over the limit: 431 as well (Node counts the request line with the headers)', async () => {
      const response = await raw(`GET /api/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(response).toMatch(/^HTTP\/1\.1 431 /);
      expect(bodyOf(response).code).toBe('headers_too_large');
    });

    it('garbage instead of HTTP: 400 bad_request', async () => {
      const response = await raw('HELLO THERE\r\n\r\n');
      expect(response).toMatch(/^HTTP\/1\.1 400 /);
      expect(bodyOf(response)).toMatchObject({ status: 400, success: false, code: 'bad_request' });
    });
  });
});

describe('HTML pages and dashboard forms never answer 5xx', () => {
  const HOSTILE = ['a\u0000b', '99999999999999999999', 'Infinity', '-1', 'x'.repeat(20_000), '1e308'];

  it.each(['/demo-a/es/events/Infinity', '/demo-a/es/events/99999999999999999999', '/demo-a/es/events/1/sessions/Infinity', '/%00/es/events', '/demo-a/%00', '/sandbox/pay/%00', '/sandbox/pay/nope'])(
    'portal page %s',
    async (url) => {
      const res = await t.app.inject({ url });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
    },
  );

  it('every field of every dashboard form, and hostile ids in dashboard paths', async () => {
    const client = new DashboardClient(t.app);
    await account(t.ctx, 'hostile-dashboard@taquilla.test');
    await client.login('hostile-dashboard@taquilla.test');
    const pages = ['/admin/channels', '/admin/events', '/admin/vouchers', '/admin/orders'];
    for (const list of ['/admin/channels', '/admin/events', '/admin/vouchers']) {
      const link = new RegExp(`href="(${list}/\\d+)"`).exec((await client.get(list)).body);
      if (link) pages.push(link[1]!);
    }
    const events = (await admin.get('/events')).body.data as { id: number }[];
    const detail = (await admin.get(`/events/${events[0]!.id}`)).body.data;
    pages.push(`/admin/sessions/${detail.sessions[0].id}`);

    const failures: string[] = [];
    let forms = 0;
    for (const page of pages) {
      const html = (await client.get(page)).body;
      for (const form of html.matchAll(/<form[^>]*method="post"[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)) {
        const action = form[1]!;
        if (action.endsWith('/logout')) continue;
        const fields = [...new Set([...form[2]!.matchAll(/name="([^"_][^"]*)"/g)].map((m) => m[1]!))];
        forms++;
        for (const field of fields) {
          for (const value of HOSTILE) {
            await client.get(page); // a fresh CSRF token of this session
            const res = await client.post(action, { [field]: value });
            if (res.statusCode >= 500) failures.push(`${action} ${field}=${value.slice(0, 20)}: ${res.statusCode}`);
          }
        }
      }
    }
    for (const path of ['/admin/events/99999999999999999999', '/admin/events/Infinity', '/admin/channels/%00', '/admin/sessions/-1', '/admin/orders?before_id=99999999999999999999']) {
      const res = await client.get(path);
      if (res.statusCode >= 500) failures.push(`GET ${path}: ${res.statusCode}`);
    }
    expect(forms).toBeGreaterThan(5);
    expect(failures).toEqual([]);
  }, 120_000);
});

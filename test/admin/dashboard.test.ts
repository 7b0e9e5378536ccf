import { sql } from 'drizzle-orm';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import dashboardRoutes from '../../src/modules/admin/dashboard/dashboard.routes.js';
import { registerRateLimits } from '../../src/http/rate-limits.js';
import { bearer, buildTestApp, firstDemoSession, tokenFor, type TestApp } from '../helpers.js';
import { account, apiAs, setUpOtherOrganiser } from './admin-helpers.js';
import { DashboardClient } from './dashboard-client.js';

let t: TestApp;
let b: Awaited<ReturnType<typeof setUpOtherOrganiser>>['ids'];

beforeAll(async () => {
  t = await buildTestApp();
  const admin = await apiAs(t, 'root@taquilla.test');
  ({ ids: b } = await setUpOtherOrganiser(t.ctx, t.app, admin));
  await account(t.ctx, 'promoter-a@taquilla.test', 1);
}, 180_000);
afterAll(() => t.close());

describe('sign-in', () => {
  it('sends a visitor without a session to the login page', async () => {
    const res = await new DashboardClient(t.app).get('/admin/channels');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/login');
  });

  it('serves an accessible login page with security headers', async () => {
    const res = await new DashboardClient(t.app).get('/admin/login');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.body).toContain('<html lang="en">');
    expect(res.body).toMatch(/<label for="email">E-mail<\/label>/);
    expect(res.body).toMatch(/<label for="password">Password<\/label>/);
    expect(res.body).toContain('<main id="main"');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('sets an HTTP-only SameSite=Lax session cookie whose id is stored only hashed', async () => {
    const client = new DashboardClient(t.app);
    await client.get('/admin/login');
    const res = await client.post('/admin/login', { email: 'Promoter-A@taquilla.test', password: 'correct horse battery staple' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/admin/channels');
    const cookie = [res.headers['set-cookie']].flat().find((c) => c!.startsWith('taquilla_admin='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/admin/);
    expect(cookie).not.toMatch(/Secure/);
    const id = client.cookies.get('taquilla_admin')!;
    const rows = await queryRows<{ id_hash: string }>(t.ctx.db, sql`SELECT id_hash FROM user_sessions`);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.id_hash)).not.toContain(id);
    expect((await client.get('/admin/channels')).statusCode).toBe(200);
  });

  it('a wrong password re-renders the form with 401 and no session', async () => {
    const client = new DashboardClient(t.app, '10.0.0.1');
    await client.get('/admin/login');
    const res = await client.post('/admin/login', { email: 'promoter-a@taquilla.test', password: 'wrong password!!' });
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain('Wrong e-mail or password');
    expect(res.body).toContain('role="alert"');
    expect(client.cookies.has('taquilla_admin')).toBe(false);
  });

  it('a login post without the form\'s token is refused (login CSRF)', async () => {
    const client = new DashboardClient(t.app, '10.0.0.2');
    const res = await client.post('/admin/login', { email: 'promoter-a@taquilla.test', password: 'correct horse battery staple' }, { csrf: 'forged' });
    expect(res.statusCode).toBe(403);
    expect(client.cookies.has('taquilla_admin')).toBe(false);
  });

  it('throttles one account from one address, but the owner signs in from another (D45)', async () => {
    const email = 'throttled@taquilla.test';
    await account(t.ctx, email);
    const max = t.config.rateLimits.adminLoginFailuresPerAccountAddress;
    const guesser = new DashboardClient(t.app, '10.1.0.1');
    await guesser.get('/admin/login');
    for (let i = 0; i < max; i++) {
      expect((await guesser.post('/admin/login', { email, password: `wrong-password-${i}` })).statusCode).toBe(401);
    }
    // From the guesser's address even the right password waits, and is told for how long.
    const blocked = await new DashboardClient(t.app, '10.1.0.1').login(email);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.body).toContain('Too many failed sign-in attempts');
    const wait = Number(blocked.headers['retry-after']);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(15 * 60);
    // The owner, elsewhere, is not locked out.
    expect((await new DashboardClient(t.app, '10.1.1.1').login(email)).statusCode).toBe(303);
  });

  it('throttles one address across accounts', async () => {
    const ip = '10.2.0.1';
    const c = new DashboardClient(t.app, ip);
    await c.get('/admin/login');
    for (let i = 0; i < t.config.rateLimits.adminLoginFailuresPerAddress; i++) {
      expect((await c.post('/admin/login', { email: `nobody${i}@taquilla.test`, password: 'whatever-password' })).statusCode).toBe(401);
    }
    expect((await new DashboardClient(t.app, ip).login('promoter-a@taquilla.test')).statusCode).toBe(429);
    expect((await new DashboardClient(t.app, '10.2.0.2').login('promoter-a@taquilla.test')).statusCode).toBe(303);
  });

  it('logout ends the session on the server', async () => {
    const client = new DashboardClient(t.app, '10.3.0.1');
    await client.login('promoter-a@taquilla.test');
    const stolen = client.cookies.get('taquilla_admin')!;
    expect((await client.post('/admin/logout')).statusCode).toBe(303);
    const reuse = await t.app.inject({ url: '/admin/channels', headers: { cookie: `taquilla_admin=${stolen}` } });
    expect(reuse.statusCode).toBe(303);
  });

  it('sessions expire', async () => {
    const client = new DashboardClient(t.app, '10.3.0.2');
    await client.login('promoter-a@taquilla.test');
    t.clock.advance(13 * 3600 * 1000);
    expect((await client.get('/admin/channels')).statusCode).toBe(303);
  });
});

describe('CSRF on state-changing forms', () => {
  it('refuses a form without the session token, or with another session\'s token', async () => {
    const a = new DashboardClient(t.app, '10.4.0.1');
    await a.login('promoter-a@taquilla.test');
    const other = new DashboardClient(t.app, '10.4.0.2');
    await other.login('promoter-a@taquilla.test');
    const form = { slug: 'csrf-test', name: 'CSRF', integration_mode: 'portal_only' };
    expect((await a.post('/admin/channels', form, { csrf: null })).statusCode).toBe(403);
    expect((await a.post('/admin/channels', form, { csrf: other.csrf })).statusCode).toBe(403);
    const [n] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM sales_channels WHERE slug = 'csrf-test'`);
    expect(Number(n!.n)).toBe(0);
    expect((await a.post('/admin/channels', form)).statusCode).toBe(303);
  });
});

describe('channels and keys through the dashboard', () => {
  let client: DashboardClient;
  beforeAll(async () => {
    client = new DashboardClient(t.app, '10.5.0.1');
    await client.login('promoter-a@taquilla.test');
  });

  /** A new channel made with the dashboard's form: its id, read from where the form sends the user. */
  async function newChannel(slug: string, name = `Shop ${slug}`): Promise<number> {
    const res = await client.post('/admin/channels', { slug, name, integration_mode: 'widget_external_payment', cart_ttl_seconds: '600' });
    expect(res.statusCode).toBe(303);
    return Number(/\/admin\/channels\/(\d+)/.exec(res.headers.location as string)![1]);
  }

  it('creates a channel and escapes what it shows', async () => {
    const channelId = await newChannel('dash-c', '<script>alert(1)</script> Shop');
    const page = await client.get(`/admin/channels/${channelId}?notice=created`);
    expect(page.statusCode).toBe(200);
    // The name is text: its "<" escaped (a ">" needs no escaping in text; Preact leaves it as is), no tag.
    expect(page.body).toMatch(/&lt;script(&gt;|>)alert\(1\)&lt;\/script(&gt;|>) Shop/);
    expect(page.body).not.toContain('<script>alert(1)');
    expect(page.body).toContain('role="status">Created.');
  });

  it('bad input shows the field errors with 422', async () => {
    const res = await client.post('/admin/channels', { slug: 'Bad Slug', name: '', integration_mode: 'portal_only' });
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('<strong>slug</strong>');
    expect(res.body).toContain('<strong>name</strong>');
  });

  it('edits mode, checkout URL, branding, cart lifetime and events; the audit shows the mode change', async () => {
    const channelId = await newChannel('dash-edit');
    const res = await client.post(`/admin/channels/${channelId}`, {
      name: 'Dash shop',
      integration_mode: 'portal_external_payment',
      checkout_url: 'https://shop.example/pay',
      cart_ttl_seconds: '',
      default_lang: 'en',
      branding_primary_color: '#123456',
      event_ids: ['1', '2'],
    });
    expect([res.statusCode, res.statusCode === 303 ? '' : res.body.slice(-1500)]).toEqual([303, '']);
    const view = await (await apiAs(t, 'viewer@taquilla.test')).get(`/channels/${channelId}`);
    expect(view.body.data).toMatchObject({
      name: 'Dash shop',
      integration_mode: 'portal_external_payment',
      checkout_url: 'https://shop.example/pay',
      cart_ttl_seconds: null,
      default_lang: 'en',
      branding: { primary_color: '#123456' },
      event_ids: [1, 2],
    });
    expect((await client.get('/admin/audit')).body).toContain('channel.mode_change');
  });

  it('generates a key shown once with a copy button, revokes it, and its token is refused; the audit shows the revocation', async () => {
    const channelId = await newChannel('dash-keys');
    await client.get(`/admin/channels/${channelId}`);
    const gen = await client.post(`/admin/channels/${channelId}/keys`);
    expect(gen.statusCode).toBe(201);
    const key = /id="new-key" readonly value="(wk_[A-Za-z0-9]+)"/.exec(gen.body)![1]!;
    expect(gen.body).toContain('data-copy-target="new-key"');
    const token = await tokenFor(t.app, 'dash-keys', key);
    const page = await client.get(`/admin/channels/${channelId}`);
    expect(page.body).toContain(`…${key.slice(-4)}`);
    expect(page.body).not.toContain(key);
    const keyId = /\/keys\/(\d+)\/revoke/.exec(page.body)![1];
    expect((await client.post(`/admin/channels/${channelId}/keys/${keyId}/revoke`)).statusCode).toBe(303);
    const refused = await t.app.inject({ url: '/api/sales-channel/v1/dash-keys/config', headers: bearer(token) });
    expect(refused.statusCode).toBe(401);
    expect((await client.get(`/admin/channels/${channelId}`)).body).toContain('revoked');
    expect((await client.get('/admin/audit')).body).toContain('widget_key.revoke');
  });

  it('shows orders and the (empty) sales report of a new channel', async () => {
    const channelId = await newChannel('dash-new');
    expect((await client.get(`/admin/orders?channel_id=${channelId}`)).statusCode).toBe(200);
    const report = await client.get(`/admin/channels/${channelId}/report`);
    expect(report.statusCode).toBe(200);
    expect(report.body).toContain('Nothing yet.');
  });
});

describe('catalogue and vouchers through the dashboard', () => {
  let client: DashboardClient;
  beforeAll(async () => {
    client = new DashboardClient(t.app, '10.6.0.1');
    await client.login('promoter-a@taquilla.test');
  });

  it('creates an event, a session, a rate and fees, and publishes them', async () => {
    await client.get('/admin/events');
    const ev = await client.post('/admin/events', { venue_id: '1', name_es: 'Zarzuela', name_en: 'Zarzuela', description_en: 'Spanish light opera' });
    expect(ev.statusCode).toBe(303);
    const eventId = /\/admin\/events\/(\d+)/.exec(ev.headers.location as string)![1];
    // The list names the event's venue and organiser (issue 29: names, not ids).
    const [names] = await queryRows<{ venue: string; organiser: string }>(
      t.ctx.db,
      sql`SELECT v.name AS venue, o.name AS organiser FROM events e JOIN venues v ON v.id = e.venue_id JOIN organisers o ON o.id = e.organiser_id WHERE e.id = ${Number(eventId)}`,
    );
    const row = new RegExp(`<a href="/admin/events/${eventId}">[^<]*</a></td><td>[^<]*</td><td>([^<]*)</td><td>([^<]*)</td>`).exec((await client.get('/admin/events')).body);
    expect(row?.slice(1)).toEqual([names!.venue, names!.organiser]);
    // So does the channels list: each channel's organiser by name.
    const channelOrganisers = [...(await client.get('/admin/channels')).body.matchAll(/<a href="\/admin\/channels\/\d+">[^<]*<\/a><\/td><td>[^<]*<\/td><td>[^<]*<\/td><td>([^<]*)<\/td>/g)].map((m) => m[1]);
    expect(channelOrganisers.length).toBeGreaterThan(0);
    expect(new Set(channelOrganisers)).toEqual(new Set([names!.organiser]));
    expect((await client.post(`/admin/events/${eventId}/publish`)).statusCode).toBe(303);
    expect((await client.post(`/admin/events/${eventId}/fees`, { name: 'Gestión', kind: 'fixed', amount: '1.25' })).statusCode).toBe(303);
    const se = await client.post(`/admin/events/${eventId}/sessions`, { start_datetime: '2031-06-01T19:30', end_datetime: '' });
    expect(se.statusCode).toBe(303);
    const sessionId = /\/admin\/sessions\/(\d+)/.exec(se.headers.location as string)![1];
    expect((await client.post(`/admin/sessions/${sessionId}/rates`, { name: 'General', price: '25.50', sector_id: '' })).statusCode).toBe(303);
    expect((await client.post(`/admin/sessions/${sessionId}/publish`)).statusCode).toBe(303);
    const page = await client.get(`/admin/sessions/${sessionId}`);
    // Entered and shown in the deployment's zone (the form says so; issues 16 and 29).
    expect(page.body).toContain('2031-06-01 19:30 CEST');
    expect(page.body).toContain('value="25.5"');
    expect(page.body).toContain('<strong>on_sale</strong>');
    // Each checkbox sits directly in its label, where the kit's checkbox style applies (the waiting
    // room's and the cancel page's were drawn as a large empty box above their text).
    for (const html of [page.body, (await client.get(`/admin/sessions/${sessionId}/cancel`)).body]) {
      const boxes = html.match(/<input type="checkbox"/g) ?? [];
      expect(boxes.length).toBeGreaterThan(0);
      expect(html.match(/<label>\s*<input type="checkbox"/g)).toHaveLength(boxes.length);
    }
    const rateId = /action="\/admin\/rates\/(\d+)"/.exec(page.body)![1];
    expect((await client.post(`/admin/rates/${rateId}`, { name: 'General', price: 'abc', sector_id: '' })).statusCode).toBe(422);
    const eventPage = await client.get(`/admin/events/${eventId}`);
    expect(eventPage.body).toContain('<strong>published</strong>');
    const feeId = /action="\/admin\/fees\/(\d+)"/.exec(eventPage.body)![1];
    expect((await client.post(`/admin/fees/${feeId}`, { name: 'Gestión', kind: 'percent', amount: '5' })).statusCode).toBe(303);
    expect((await client.post(`/admin/fees/${feeId}/delete`)).statusCode).toBe(303);
    // Each form's redirect names a notice the page shows: cancelling the session says what it did.
    const cancelled = await client.post(`/admin/sessions/${sessionId}/cancel`, { refund: 'on' });
    expect(cancelled.headers.location).toBe(`/admin/sessions/${sessionId}?notice=cancelled`);
    const after = await client.get(cancelled.headers.location as string);
    expect(after.body).toContain('<p class="notice" role="status">Session cancelled: it sells no more, its live carts are ended and its channels are told.</p>');
    expect(after.body).toContain('<strong>cancelled</strong>');
    // A name no form sends shows nothing (nor one of Object's own properties).
    for (const unknown of ['nonsense', 'constructor', 'toString']) expect((await client.get(`/admin/sessions/${sessionId}?notice=${unknown}`)).body).not.toContain('class="notice"');
  });

  it('creates and edits a voucher', async () => {
    await client.get('/admin/vouchers');
    const res = await client.post('/admin/vouchers', { code: 'dash20', kind: 'percent', value: '20', max_uses: '' });
    expect(res.statusCode).toBe(303);
    const id = /\/admin\/vouchers\/(\d+)/.exec(res.headers.location as string)![1];
    // Issue 29: the session is picked by its event's name and start, in the deployment's zone
    // (Europe/Madrid), as are the validity times; no raw ids to type.
    const edit = await client.get(`/admin/vouchers/${id}`);
    const { sessionId } = await firstDemoSession(t);
    const sessionPicker = /<select[^>]*name="session_id"[^>]*>(.*?)<\/select>/s.exec(edit.body)![1]!;
    const option = new RegExp(`<option value="${sessionId}">([^<]+)</option>`).exec(sessionPicker);
    expect(option?.[1]).toMatch(/^\S.* · \d{4}-\d{2}-\d{2} \d{2}:\d{2} CES?T$/);
    expect(edit.body).toContain('Valid until (Europe/Madrid time)');
    expect(edit.body).not.toContain('UTC');
    expect((await client.post(`/admin/vouchers/${id}`, { code: 'DASH20', kind: 'fixed', value: '4', valid_until: '2031-01-01T00:00', session_id: String(sessionId) })).statusCode).toBe(303);
    const saved = (await (await apiAs(t, 'voucher-reader@taquilla.test')).get(`/vouchers/${id}`)).body.data;
    expect(saved).toMatchObject({ session_id: sessionId, valid_until: '2030-12-31T23:00:00+00:00' });
    const again = await client.get(`/admin/vouchers/${id}`);
    expect(again.body).toContain('value="2031-01-01T00:00"');
    expect(/<select[^>]*name="session_id"[^>]*>(.*?)<\/select>/s.exec(again.body)![1]).toContain(`<option value="${sessionId}" selected>`);
    const page = await client.get('/admin/vouchers');
    expect(page.body).toContain('DASH20');
    expect(page.body).toContain('4.00');
    expect(page.body).not.toContain('BONLY');
  });
});

describe('promoter isolation in the dashboard', () => {
  it('another organiser\'s pages and forms are 404 and change nothing', async () => {
    const client = new DashboardClient(t.app, '10.7.0.1');
    await client.login('promoter-a@taquilla.test');
    const gets = [`/admin/channels/${b.channel}`, `/admin/channels/${b.channel}/report`, `/admin/orders?channel_id=${b.channel}`, `/admin/events/${b.event}`, `/admin/sessions/${b.session}`, `/admin/vouchers/${b.voucher}`];
    for (const url of gets) expect({ url, status: (await client.get(url)).statusCode }).toEqual({ url, status: 404 });
    await client.get('/admin/channels');
    const posts: [string, Record<string, string>][] = [
      [`/admin/channels/${b.channel}`, { name: 'x', integration_mode: 'portal_only' }],
      [`/admin/channels/${b.channel}/keys`, {}],
      [`/admin/channels/${b.channel}/keys/${b.key}/revoke`, {}],
      [`/admin/events/${b.event}`, { name_es: 'x' }],
      [`/admin/events/${b.event}/publish`, {}],
      [`/admin/events/${b.event}/sessions`, { start_datetime: '2031-01-01T00:00' }],
      [`/admin/events/${b.event}/fees`, { name: 'x', kind: 'fixed', amount: '1' }],
      [`/admin/sessions/${b.session}`, { start_datetime: '2031-01-01T00:00' }],
      [`/admin/sessions/${b.session}/publish`, {}],
      [`/admin/sessions/${b.session}/rates`, { name: 'x', price: '1' }],
      [`/admin/sessions/${b.session}/fees`, { name: 'x', kind: 'fixed', amount: '1' }],
      [`/admin/rates/${b.rate}`, { name: 'x', price: '1' }],
      [`/admin/fees/${b.fee}`, { name: 'x', kind: 'fixed', amount: '1' }],
      [`/admin/fees/${b.fee}/delete`, {}],
      [`/admin/vouchers/${b.voucher}`, { code: 'X', kind: 'fixed', value: '1' }],
    ];
    for (const [url, form] of posts) expect({ url, status: (await client.post(url, form)).statusCode }).toEqual({ url, status: 404 });
    await tokenFor(t.app, 'channel-b', 'wk_channel_b_fixed');
    const list = await client.get('/admin/channels');
    expect(list.body).not.toContain('channel-b');
  });
});

describe('an admin in the dashboard', () => {
  it('sees every organiser\'s channels and creates one for a chosen organiser', async () => {
    const client = new DashboardClient(t.app, '10.9.0.1');
    await client.login('root@taquilla.test');
    const list = await client.get('/admin/channels');
    expect(list.body).toContain('channel-b');
    expect(list.body).toContain('demo-a');
    expect(list.body).toContain('<label for="f-organiser_id');
    const res = await client.post('/admin/channels', { organiser_id: String(b.organiser), slug: 'b-by-admin', name: 'By admin', integration_mode: 'portal_only' });
    expect(res.statusCode).toBe(303);
    const [row] = await queryRows<{ organiser_id: number }>(t.ctx.db, sql`SELECT organiser_id FROM sales_channels WHERE slug = 'b-by-admin'`);
    expect(row!.organiser_id).toBe(b.organiser);
    expect((await client.get(`/admin/channels/${b.channel}`)).statusCode).toBe(200);
  });
});

describe('Secure cookie on https', () => {
  it('marks the session cookie Secure when PUBLIC_BASE_URL is https', async () => {
    // The same dashboard plugin and database, in an app whose public address is https.
    const app = Fastify({ logger: false });
    app.decorate('ctx', { ...t.ctx, config: { ...t.config, publicBaseUrl: 'https://tickets.example' } });
    await registerRateLimits(app);
    await app.register(dashboardRoutes, { prefix: '/admin' });
    await app.ready();
    try {
      const client = new DashboardClient(app, '10.8.0.1');
      await client.get('/admin/login');
      const res = await client.post('/admin/login', { email: 'promoter-a@taquilla.test', password: 'correct horse battery staple' });
      const cookie = [res.headers['set-cookie']].flat().find((c) => c!.startsWith('taquilla_admin='))!;
      expect(cookie).toMatch(/; Secure/);
    } finally {
      await app.close();
    }
  });
});

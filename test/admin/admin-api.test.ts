import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { bearer, buildTestApp, expectRefused, tokenFor, type TestApp } from '../helpers.js';
import { account, api, apiAs, otherOrganiserDocument, setUpOtherOrganiser } from './admin-helpers.js';

let t: TestApp;
let admin: ReturnType<typeof api>;
let promoterA: ReturnType<typeof api>;
let promoterAToken: string;
let promoterB: ReturnType<typeof api>;
/** Ids of organiser B's records, which promoter A must never reach. */
let b: Awaited<ReturnType<typeof setUpOtherOrganiser>>['ids'];
const DEMO_ORGANISER = 1;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await apiAs(t, 'root@taquilla.test');
  ({ ids: b, promoterB } = await setUpOtherOrganiser(t.ctx, t.app, admin));
  promoterAToken = (await account(t.ctx, 'promoter-a@taquilla.test', DEMO_ORGANISER)).token;
  promoterA = api(t.app, promoterAToken);
}, 180_000);
afterAll(() => t.close());

describe('admin API authentication', () => {
  it('401 without a token, with an unknown token, and in the error envelope', async () => {
    const none = await t.app.inject({ url: '/api/admin/v1/me' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ status: 401, success: false, code: 'unauthenticated' });
    const unknown = await t.app.inject({ url: '/api/admin/v1/me', headers: bearer('at_nope') });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json().code).toBe('invalid_token');
  });

  it('a widget-channel bearer token is not an admin token', async () => {
    const channelToken = await tokenFor(t.app, 'demo-d', 'wk_demo_d');
    const res = await t.app.inject({ url: '/api/admin/v1/me', headers: bearer(channelToken) });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ status: 401, success: false, code: 'invalid_token', message: expect.any(String) });
  });

  it('/me tells who the token belongs to', async () => {
    expect((await admin.get('/me')).body.data).toMatchObject({ email: 'root@taquilla.test', role: 'admin', organiser_id: null });
    expect((await promoterA.get('/me')).body.data).toMatchObject({ role: 'promoter', organiser_id: DEMO_ORGANISER });
  });

  it('admin-only actions answer 403 to a promoter', async () => {
    expectRefused(await promoterA.post('/organisers', { name: 'Mine' }), 403, 'forbidden');
    expectRefused(await promoterA.post('/users', { email: 'x@y.test', password: 'long enough password', role: 'admin' }), 403, 'forbidden');
    expectRefused(await promoterA.post('/catalogue/import', otherOrganiserDocument), 403, 'forbidden');
  });

  it('an admin creates organisers and accounts; bad input is 422, a taken e-mail 409', async () => {
    const org = await admin.post('/organisers', { name: 'Tercera' });
    expect(org.status).toBe(201);
    const user = await admin.post('/users', { email: 'Third@Taquilla.test', password: 'a long enough password', role: 'promoter', organiser_id: org.body.data.id });
    expect(user.status).toBe(201);
    expect(user.body.data).toMatchObject({ email: 'third@taquilla.test', role: 'promoter', organiser_id: org.body.data.id });
    expectRefused(await admin.post('/users', { email: 'third@taquilla.test', password: 'a long enough password', role: 'admin' }), 409, 'conflict');
    const weak = await admin.post('/users', { email: 'weak@taquilla.test', password: 'short', role: 'admin' });
    expectRefused(weak, 422, 'validation_failed');
    expect(weak.body.errors).toHaveProperty('password');
    expectRefused(await admin.post('/users', { email: 'p@taquilla.test', password: 'a long enough password', role: 'promoter' }), 422, 'validation_failed');
  });

  it('organisers: an admin sees all, a promoter only its own', async () => {
    expect((await admin.get('/organisers')).body.data.length).toBeGreaterThanOrEqual(2);
    expect((await promoterA.get('/organisers')).body.data.map((o: { id: number }) => o.id)).toEqual([DEMO_ORGANISER]);
  });
});

describe('channels and widget keys', () => {
  /** A new model C channel of promoter A's organiser, made through the API: its id. */
  async function channelOfA(slug: string): Promise<number> {
    const res = await promoterA.post('/channels', { slug, name: `Partner ${slug}`, integration_mode: 'widget_platform_payment', cart_ttl_seconds: 600 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.id;
  }
  const configOf = (slug: string, token: string) => t.app.inject({ url: `/api/sales-channel/v1/${slug}/config`, headers: bearer(token) });

  it('a promoter creates a channel for its own organiser; naming another organiser is 404', async () => {
    const res = await promoterA.post('/channels', { slug: 'partner-a', name: 'Partner A', integration_mode: 'widget_platform_payment', cart_ttl_seconds: 600 });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ slug: 'partner-a', organiser_id: DEMO_ORGANISER, cart_ttl_seconds: 600, event_ids: [] });
    const foreign = await promoterA.post('/channels', { organiser_id: b.organiser, slug: 'sneaky', name: 'Sneaky', integration_mode: 'portal_only' });
    expectRefused(foreign, 404, 'not_found');
  });

  it('an admin must name the organiser; bad fields are 422; a taken slug is 409', async () => {
    const missing = await admin.post('/channels', { slug: 'no-org', name: 'x', integration_mode: 'portal_only' });
    expectRefused(missing, 422, 'validation_failed');
    expect(missing.body.errors).toHaveProperty('organiser_id');
    const modelB = await admin.post('/channels', { organiser_id: DEMO_ORGANISER, slug: 'no-url', name: 'x', integration_mode: 'portal_external_payment' });
    expectRefused(modelB, 422, 'validation_failed');
    expect(modelB.body.errors).toHaveProperty('checkout_url');
    const badSlug = await admin.post('/channels', { organiser_id: DEMO_ORGANISER, slug: 'Bad Slug', name: 'x', integration_mode: 'portal_only' });
    expectRefused(badSlug, 422, 'validation_failed');
    const taken = await admin.post('/channels', { organiser_id: DEMO_ORGANISER, slug: 'demo-a', name: 'x', integration_mode: 'portal_only' });
    expectRefused(taken, 409, 'conflict');
    const foreignEvent = await admin.post('/channels', { organiser_id: DEMO_ORGANISER, slug: 'mixed', name: 'x', integration_mode: 'portal_only', event_ids: [b.event] });
    expectRefused(foreignEvent, 422, 'validation_failed');
  });

  it('lists: a promoter sees only its organiser\'s channels, an admin all', async () => {
    await channelOfA('listed-a');
    const mine = (await promoterA.get('/channels')).body.data.map((c: { slug: string }) => c.slug);
    expect(mine).toContain('listed-a');
    expect(mine).toContain('demo-d');
    expect(mine).not.toContain('channel-b');
    const all = (await admin.get('/channels')).body.data.map((c: { slug: string }) => c.slug);
    expect(all).toEqual(expect.arrayContaining(['listed-a', 'channel-b', 'demo-a']));
  });

  it('generate a key (shown once), use it, list it by last four, revoke it: its tokens stop at once', async () => {
    const channelId = await channelOfA('keys-a');
    const gen = await promoterA.post(`/channels/${channelId}/keys`);
    expect(gen.status).toBe(201);
    const key: string = gen.body.data.widget_key;
    expect(key).toMatch(/^wk_[A-Za-z0-9]{40}$/);
    const token = await tokenFor(t.app, 'keys-a', key);
    expect((await configOf('keys-a', token)).statusCode).toBe(200);

    const list = await promoterA.get(`/channels/${channelId}/keys`);
    expect(list.body.data).toEqual([{ id: gen.body.data.id, last_four: key.slice(-4), created_at: expect.stringMatching(/\+00:00$/), revoked_at: null }]);
    expect(JSON.stringify(list.body)).not.toContain(key);

    const revoked = await promoterA.del(`/channels/${channelId}/keys/${gen.body.data.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revoked_at).toMatch(/\+00:00$/);
    const refused = await configOf('keys-a', token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ status: 401, success: false, code: 'invalid_token', message: 'The access token is invalid, expired or revoked' });
    expectRefused(await promoterA.del(`/channels/${channelId}/keys/${gen.body.data.id}`), 409, 'conflict');
    expectRefused(await promoterA.del(`/channels/${channelId}/keys/999999`), 404, 'not_found');
  });

  it('edit mode, checkout URL, branding, cart lifetime and events; the channel config shows it at once', async () => {
    const channelId = await channelOfA('edited-a');
    const gen = await promoterA.post(`/channels/${channelId}/keys`);
    let token = await tokenFor(t.app, 'edited-a', gen.body.data.widget_key);
    const config = async () => (await configOf('edited-a', token)).json().data;
    expect((await config()).integration_mode).toBe('widget_platform_payment');

    const events = (await promoterA.get('/events')).body.data.map((e: { id: number }) => e.id);
    const res = await promoterA.patch(`/channels/${channelId}`, {
      integration_mode: 'portal_external_payment',
      checkout_url: 'https://partner.example/checkout',
      branding: { primary_color: '#112233', name: 'Partner' },
      cart_ttl_seconds: 300,
      event_ids: events,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ integration_mode: 'portal_external_payment', cart_ttl_seconds: 300, event_ids: events });
    // A mode change revokes the channel's tokens (D42, D74): the old one is 401, a new one sees the change.
    const stale = await configOf('edited-a', token);
    expect(stale.json()).toMatchObject({ status: 401, code: 'invalid_token' });
    token = await tokenFor(t.app, 'edited-a', gen.body.data.widget_key);
    const after = await config();
    expect(after).toMatchObject({ integration_mode: 'portal_external_payment', checkout_url: 'https://partner.example/checkout', cart_ttl_seconds: 300 });
    expect(after.branding).toMatchObject({ primary_color: '#112233', name: 'Partner' });

    expectRefused(await promoterA.patch(`/channels/${channelId}`, { branding: { primary_color: 'red' } }), 422, 'validation_failed');
    expectRefused(await promoterA.patch(`/channels/${channelId}`, { checkout_url: null }), 422, 'validation_failed');
    expectRefused(await promoterA.patch(`/channels/${channelId}`, {}), 422, 'validation_failed');
  });

  it('audits key generation, revocation and mode changes with who and when', async () => {
    const channelId = await channelOfA('audited-a');
    const gen = await promoterA.post(`/channels/${channelId}/keys`);
    expect((await promoterA.del(`/channels/${channelId}/keys/${gen.body.data.id}`)).status).toBe(200);
    const edit = await promoterA.patch(`/channels/${channelId}`, { integration_mode: 'portal_external_payment', checkout_url: 'https://partner.example/checkout' });
    expect(edit.status).toBe(200);
    const log = (await promoterA.get('/audit-log?limit=200')).body.data as { action: string; user_email: string; target_id: string; details: Record<string, unknown>; created_at: string }[];
    const actionsOn = (id: number, kind: string) => log.filter((e) => e.target_id === String(id) && e.action.startsWith(kind)).map((e) => e.action).sort();
    expect(actionsOn(channelId, 'channel.')).toEqual(['channel.create', 'channel.mode_change', 'channel.update']);
    expect(actionsOn(gen.body.data.id, 'widget_key.')).toEqual(['widget_key.generate', 'widget_key.revoke']);
    const mode = log.find((e) => e.action === 'channel.mode_change' && e.target_id === String(channelId))!;
    expect(mode).toMatchObject({ user_email: 'promoter-a@taquilla.test', target_id: String(channelId), details: { from: 'widget_platform_payment', to: 'portal_external_payment' } });
    expect(mode.created_at).toMatch(/\+00:00$/);
    expect(log.every((e) => e.user_email !== 'promoter-b@taquilla.test')).toBe(true);
  });

  it('concurrent creations of one slug: one 201, the others 409, never a 500', async () => {
    const body = { slug: 'race-slug', name: 'Race', integration_mode: 'portal_only' };
    const results = await Promise.all(Array.from({ length: 6 }, () => promoterA.post('/channels', body)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
  });

  it('concurrent revocations of one key: one succeeds, one audit entry', async () => {
    const channelId = await channelOfA('revoked-a');
    const gen = await promoterA.post(`/channels/${channelId}/keys`);
    const url = `/channels/${channelId}/keys/${gen.body.data.id}`;
    const results = await Promise.all(Array.from({ length: 4 }, () => promoterA.del(url)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(3);
    const log = (await promoterA.get('/audit-log?limit=200')).body.data as { action: string; target_id: string }[];
    expect(log.filter((e) => e.action === 'widget_key.revoke' && e.target_id === String(gen.body.data.id))).toHaveLength(1);
  });

  it('a failed change writes no audit entry (same transaction)', async () => {
    const channelId = await channelOfA('unchanged-a');
    const before = (await admin.get('/audit-log?limit=200')).body.data.length;
    expectRefused(await promoterA.del(`/channels/${channelId}/keys/999999`), 404, 'not_found');
    expect((await admin.get('/audit-log?limit=200')).body.data.length).toBe(before);
  });
});

describe('events, sessions, rates and fees', () => {
  const venueOfA = async () => (await promoterA.get('/venues')).body.data[0];
  const OPERA = { names: { es: 'Ópera', en: 'Opera' }, descriptions: { en: 'Arias' } };
  /** A draft event of promoter A on its organiser's venue, made through the API: its id. */
  async function draftEvent(): Promise<number> {
    const res = await promoterA.post('/events', { venue_id: (await venueOfA()).id, ...OPERA });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.id;
  }
  async function publishedEvent(): Promise<number> {
    const eventId = await draftEvent();
    expect((await promoterA.post(`/events/${eventId}/publish`)).status).toBe(200);
    return eventId;
  }
  const addSession = (eventId: number) => promoterA.post(`/events/${eventId}/sessions`, { start_datetime: '2031-05-01T18:00:00Z', end_datetime: '2031-05-01T21:00:00Z' });
  /** A published event with one draft session (the venue's whole inventory): their ids. */
  async function eventWithSession(): Promise<{ eventId: number; sessionId: number }> {
    const eventId = await publishedEvent();
    const res = await addSession(eventId);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { eventId, sessionId: res.body.data.id };
  }

  it('create an event as a draft on an own venue; another organiser\'s venue is 404', async () => {
    const venue = await venueOfA();
    expect(venue.sectors.length).toBe(3);
    const res = await promoterA.post('/events', { venue_id: venue.id, ...OPERA });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'draft', organiser_id: DEMO_ORGANISER, ...OPERA, sessions: [], fees: [] });
    expectRefused(await promoterA.post('/events', { venue_id: b.venue, names: { es: 'X' } }), 404, 'not_found');
    expectRefused(await promoterA.post('/events', { venue_id: venue.id, names: {} }), 422, 'validation_failed');
  });

  it('edit and publish the event', async () => {
    const eventId = await draftEvent();
    const edited = await promoterA.patch(`/events/${eventId}`, { names: { es: 'Ópera nueva', en: 'New opera' }, image_url: 'https://img.example/o.png' });
    expect(edited.body.data).toMatchObject({ names: { es: 'Ópera nueva', en: 'New opera' }, descriptions: { en: 'Arias' }, image_url: 'https://img.example/o.png', status: 'draft' });
    const published = await promoterA.post(`/events/${eventId}/publish`);
    expect(published.status).toBe(200);
    expect(published.body.data.status).toBe('published');
  });

  it('add a session with its whole inventory, edit and publish it', async () => {
    const eventId = await publishedEvent();
    const res = await addSession(eventId);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ event_id: eventId, status: 'draft', start_datetime: '2031-05-01T18:00:00+00:00', rates: [] });
    const sessionId = res.body.data.id;
    const [inv] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM session_seats WHERE session_id = ${sessionId}`);
    expect(Number(inv!.n)).toBe(560 + 200);
    const edited = await promoterA.patch(`/sessions/${sessionId}`, { start_datetime: '2031-05-02T18:00:00Z', end_datetime: null });
    expect(edited.body.data).toMatchObject({ start_datetime: '2031-05-02T18:00:00+00:00', end_datetime: null });
    expectRefused(await promoterA.patch(`/sessions/${sessionId}`, { end_datetime: '2031-05-01T00:00:00Z' }), 422, 'validation_failed');
    expect((await promoterA.post(`/sessions/${sessionId}/publish`)).body.data.status).toBe('on_sale');
  });

  it('rates: create in decimal amounts, restrict to a sector of the venue, edit', async () => {
    const { sessionId } = await eventWithSession();
    const venue = await venueOfA();
    const rate = await promoterA.post(`/sessions/${sessionId}/rates`, { name: 'VIP', names: { en: 'VIP' }, price: 45.5, sector_id: venue.sectors[0].id, meta: { perks: 'drink' } });
    expect(rate.status).toBe(201);
    expect(rate.body.data).toMatchObject({ name: 'VIP', price: 45.5, sector_id: venue.sectors[0].id, meta: { perks: 'drink' }, sort_order: 0 });
    const [stored] = await queryRows<{ price: number }>(t.ctx.db, sql`SELECT price FROM rates WHERE id = ${rate.body.data.id}`);
    expect(stored!.price).toBe(4550);
    const other = (await promoterB.get('/venues')).body.data[0].sectors[0].id;
    expectRefused(await promoterA.post(`/sessions/${sessionId}/rates`, { name: 'X', price: 1, sector_id: other }), 422, 'validation_failed');
    expectRefused(await promoterA.post(`/sessions/${sessionId}/rates`, { name: 'X', price: 1.005 }), 422, 'validation_failed');
    const edited = await promoterA.patch(`/rates/${rate.body.data.id}`, { price: 40, sector_id: null });
    expect(edited.body.data).toMatchObject({ price: 40, sector_id: null });
  });

  it('fees on the event and on the session, edit and delete', async () => {
    const { eventId, sessionId } = await eventWithSession();
    const eventFee = await promoterA.post(`/events/${eventId}/fees`, { name: 'Gestión', kind: 'percent', amount: 7.5 });
    expect(eventFee.body.data).toMatchObject({ event_id: eventId, session_id: null, kind: 'percent', amount: 7.5 });
    const sessionFee = await promoterA.post(`/sessions/${sessionId}/fees`, { name: 'Cloakroom', kind: 'fixed', amount: 2 });
    expect(sessionFee.body.data).toMatchObject({ event_id: null, session_id: sessionId, amount: 2 });
    const detail = (await promoterA.get(`/sessions/${sessionId}`)).body.data;
    expect(detail.fees.map((f: { name: string }) => f.name)).toEqual(['Gestión', 'Cloakroom']);
    const edited = await promoterA.patch(`/fees/${sessionFee.body.data.id}`, { amount: 2.25 });
    expect(edited.body.data.amount).toBe(2.25);
    expectRefused(await promoterA.patch(`/fees/${eventFee.body.data.id}`, { amount: 150 }), 422, 'validation_failed');
    expect((await promoterA.del(`/fees/${sessionFee.body.data.id}`)).status).toBe(200);
    expect((await promoterA.get(`/sessions/${sessionId}`)).body.data.fees).toHaveLength(1);
  });

  it('a new published session on a channel that sells the event shows in the B2B catalogue data', async () => {
    // Its own event, session, rate and channel: nothing here depends on the tests above.
    const venue = await venueOfA();
    const event = (await promoterA.post('/events', { venue_id: venue.id, names: { es: 'Zarzuela', en: 'Zarzuela night' } })).body.data;
    expect((await promoterA.post(`/events/${event.id}/publish`)).body.data.status).toBe('published');
    const session = (await promoterA.post(`/events/${event.id}/sessions`, { start_datetime: '2031-06-01T19:00:00Z', end_datetime: '2031-06-01T22:00:00Z' })).body.data;
    const rate = (await promoterA.post(`/sessions/${session.id}/rates`, { name: 'Platea', names: { en: 'Stalls' }, price: 30 })).body.data;
    const channel = await promoterA.post('/channels', { slug: 'catalogue-partner', name: 'Catalogue partner', integration_mode: 'widget_external_payment', event_ids: [event.id] });
    expect(channel.status).toBe(201);
    const key = (await promoterA.post(`/channels/${channel.body.data.id}/keys`)).body.data.widget_key;
    const token = await tokenFor(t.app, 'catalogue-partner', key);
    const b2b = async (path: string) => {
      const res = await t.app.inject({ url: `/api/sales-channel/v1/catalogue-partner/en${path}`, headers: bearer(token) });
      return { status: res.statusCode, body: res.json() };
    };

    // A draft session is not for sale: the published event lists no session yet.
    const before = await b2b('/events');
    expect(before.status).toBe(200);
    expect(before.body.data).toEqual([expect.objectContaining({ id: event.id, name: 'Zarzuela night', sessions: [] })]);
    expect((await b2b(`/events/${event.id}/sessions/${session.id}`)).body).toMatchObject({ status: 404, success: false, code: 'not_found' });

    expect((await promoterA.post(`/sessions/${session.id}/publish`)).body.data.status).toBe('on_sale');
    const events = await b2b('/events');
    expect(events.body).toMatchObject({ status: 200, success: true });
    expect(events.body.data).toEqual([
      expect.objectContaining({
        id: event.id,
        name: 'Zarzuela night',
        sessions: [expect.objectContaining({ id: session.id, start_datetime: '2031-06-01T19:00:00+00:00', sale_state: 'on_sale' })],
      }),
    ]);
    const sessions = await b2b(`/events/${event.id}/sessions`);
    expect(sessions.body.data).toEqual([
      expect.objectContaining({ id: session.id, event_id: event.id, status: 'on_sale', capacity: 560 + 200, available: 560 + 200 }),
    ]);
    const detail = await b2b(`/events/${event.id}/sessions/${session.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data.session).toMatchObject({ id: session.id, event_id: event.id, start_datetime: '2031-06-01T19:00:00+00:00' });
    expect(detail.body.data.elements.seats[0].rates).toEqual([expect.objectContaining({ id: rate.id, name: 'Stalls', price: 30 })]);
  });
});

describe('vouchers', () => {
  it('create, read, edit; a duplicate code is 409; a foreign restriction 422', async () => {
    const res = await promoterA.post('/vouchers', { code: 'spring24', kind: 'percent', value: 12.5, max_uses: 100, valid_until: '2031-01-01T00:00:00Z' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ code: 'SPRING24', kind: 'percent', value: 12.5, max_uses: 100, organiser_id: DEMO_ORGANISER, valid_until: '2031-01-01T00:00:00+00:00' });
    const id = res.body.data.id;
    expect((await promoterA.get(`/vouchers/${id}`)).body.data.code).toBe('SPRING24');
    const edited = await promoterA.patch(`/vouchers/${id}`, { kind: 'fixed', value: 3, max_uses: null });
    expect(edited.body.data).toMatchObject({ kind: 'fixed', value: 3, max_uses: null });
    expectRefused(await promoterA.post('/vouchers', { code: 'DEMO10', kind: 'fixed', value: 1 }), 409, 'conflict');
    expectRefused(await promoterA.patch(`/vouchers/${id}`, { code: 'DEMO5' }), 409, 'conflict');
    expectRefused(await promoterA.post('/vouchers', { code: 'X1', kind: 'fixed', value: 1, event_id: b.event }), 422, 'validation_failed');
    expectRefused(await promoterA.post('/vouchers', { code: 'X2', kind: 'percent', value: 101 }), 422, 'validation_failed');
    // the same code may exist at another organiser
    expect((await promoterB.post('/vouchers', { code: 'SPRING24', kind: 'fixed', value: 1 })).status).toBe(201);
  });

  it('lists only the organiser\'s vouchers', async () => {
    expect((await promoterA.post('/vouchers', { code: 'AUTUMN24', kind: 'fixed', value: 2 })).status).toBe(201);
    const codes = (await promoterA.get('/vouchers')).body.data.map((v: { code: string }) => v.code);
    expect(codes).toEqual(expect.arrayContaining(['DEMO10', 'DEMO5', 'AUTUMN24']));
    expect(codes).not.toContain('BONLY');
  });
});

describe('orders (read-only)', () => {
  beforeAll(async () => {
    await t.ctx.db.execute(sql`
      INSERT INTO orders (order_token, reference, channel_id, type, status, currency, base_amount, fee_amount, total_amount, created_at)
      SELECT 'tok-a', 'REF-A', id, 'purchase', 'completed', 'EUR', 3000, 150, 3150, now() FROM sales_channels WHERE slug = 'demo-d'`);
    await t.ctx.db.execute(sql`
      INSERT INTO orders (order_token, reference, channel_id, type, status, currency, base_amount, total_amount, created_at)
      SELECT 'tok-b', 'REF-B', id, 'purchase', 'pending', 'EUR', 1000, 1000, now() FROM sales_channels WHERE slug = 'channel-b'`);
  });

  it('lists the orders of the actor\'s channels with reference, status, type, total and date', async () => {
    const mine = (await promoterA.get('/orders')).body.data;
    expect(mine).toEqual([
      { id: expect.any(Number), reference: 'REF-A', channel_id: expect.any(Number), sales_channel_slug: 'demo-d', type: 'purchase', status: 'completed', total_amount: 31.5, currency: 'EUR', created_at: expect.stringMatching(/\+00:00$/), buyer_name: null, buyer_email: null },
    ]);
    const all = (await admin.get('/orders')).body.data.map((o: { reference: string }) => o.reference);
    expect(all).toEqual(expect.arrayContaining(['REF-A', 'REF-B']));
    expect((await admin.get(`/orders?channel_id=${b.channel}&status=pending`)).body.data.map((o: { reference: string }) => o.reference)).toEqual(['REF-B']);
    expectRefused(await admin.get('/orders?status=nope'), 422, 'validation_failed');
  });
});

describe('promoter isolation: another organiser\'s ids are 404 on every route', () => {
  const routes = (): [string, 'GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown?][] => [
    ['channel', 'GET', `/channels/${b.channel}`],
    ['channel edit', 'PATCH', `/channels/${b.channel}`, { integration_mode: 'portal_only' }],
    ['channel keys', 'GET', `/channels/${b.channel}/keys`],
    ['generate key', 'POST', `/channels/${b.channel}/keys`, {}],
    ['revoke key', 'DELETE', `/channels/${b.channel}/keys/${b.key}`],
    ['channel orders', 'GET', `/channels/${b.channel}/orders`],
    ['orders by channel', 'GET', `/orders?channel_id=${b.channel}`],
    ['event', 'GET', `/events/${b.event}`],
    ['event edit', 'PATCH', `/events/${b.event}`, { status: 'archived' }],
    ['event publish', 'POST', `/events/${b.event}/publish`, {}],
    ['event session', 'POST', `/events/${b.event}/sessions`, { start_datetime: '2031-01-01T00:00:00Z' }],
    ['event fee', 'POST', `/events/${b.event}/fees`, { name: 'x', kind: 'fixed', amount: 1 }],
    ['session', 'GET', `/sessions/${b.session}`],
    ['session edit', 'PATCH', `/sessions/${b.session}`, { status: 'closed' }],
    ['session publish', 'POST', `/sessions/${b.session}/publish`, {}],
    ['session rate', 'POST', `/sessions/${b.session}/rates`, { name: 'x', price: 1 }],
    ['session fee', 'POST', `/sessions/${b.session}/fees`, { name: 'x', kind: 'fixed', amount: 1 }],
    ['rate edit', 'PATCH', `/rates/${b.rate}`, { price: 0 }],
    ['fee edit', 'PATCH', `/fees/${b.fee}`, { amount: 0 }],
    ['fee delete', 'DELETE', `/fees/${b.fee}`],
    ['voucher', 'GET', `/vouchers/${b.voucher}`],
    ['voucher edit', 'PATCH', `/vouchers/${b.voucher}`, { value: 99 }],
    ['channel create for B', 'POST', '/channels', { organiser_id: b.organiser, slug: 'x-b', name: 'x', integration_mode: 'portal_only' }],
    ['event create for B', 'POST', '/events', { organiser_id: b.organiser, venue_id: b.venue, names: { es: 'x' } }],
    ['voucher create for B', 'POST', '/vouchers', { organiser_id: b.organiser, code: 'XB', kind: 'fixed', value: 1 }],
  ];

  it('promoter A gets 404, exactly like an unknown id, and B\'s data is unchanged', async () => {
    const token = promoterAToken;
    const auditBefore = (await admin.get('/audit-log?limit=200')).body.data.length;
    for (const [name, method, url, payload] of routes()) {
      const res = await t.app.inject({
        method,
        url: `/api/admin/v1${url}`,
        headers: { authorization: `Bearer ${token}` },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      expect({ name, status: res.statusCode, code: res.json().code }).toEqual({ name, status: 404, code: 'not_found' });
    }
    expect((await admin.get('/audit-log?limit=200')).body.data.length).toBe(auditBefore);
    const channel = (await promoterB.get(`/channels/${b.channel}`)).body.data;
    expect(channel.integration_mode).toBe('widget_external_payment');
    expect((await promoterB.get(`/channels/${b.channel}/keys`)).body.data[0].revoked_at).toBeNull();
    expect((await promoterB.get(`/vouchers/${b.voucher}`)).body.data.value).toBe(15);
    expect((await promoterB.get(`/events/${b.event}`)).body.data.fees).toHaveLength(1);
    // and the channel's key still works
    await tokenFor(t.app, 'channel-b', 'wk_channel_b_fixed');
  });

  it('an unknown id answers the same 404 body as a foreign one', async () => {
    const foreign = await promoterA.get(`/events/${b.event}`);
    const unknown = await promoterA.get('/events/999999');
    expectRefused(unknown, 404, 'not_found');
    expect(foreign).toEqual(unknown);
  });

  it('lists and the audit log never show B\'s records to A', async () => {
    expect((await promoterA.get('/events')).body.data.map((e: { id: number }) => e.id)).not.toContain(b.event);
    expect((await promoterA.get('/venues')).body.data.map((v: { id: number }) => v.id)).not.toContain(b.venue);
    expect((await promoterA.get('/orders')).body.data.map((o: { channel_id: number }) => o.channel_id)).not.toContain(b.channel);
    await promoterB.patch(`/channels/${b.channel}`, { name: 'Channel B renamed' });
    const auditA = (await promoterA.get('/audit-log?limit=200')).body.data;
    expect(auditA.some((e: { target_id: string; target_type: string }) => e.target_type === 'sales_channel' && e.target_id === String(b.channel))).toBe(false);
    const auditAdmin = (await admin.get('/audit-log?limit=200')).body.data;
    expect(auditAdmin.some((e: { target_id: string; action: string }) => e.action === 'channel.update' && e.target_id === String(b.channel))).toBe(true);
  });

  it('admin reaches every organiser\'s records', async () => {
    expect((await admin.get(`/channels/${b.channel}`)).status).toBe(200);
    expect((await admin.get(`/events/${b.event}`)).status).toBe(200);
    expect((await admin.get(`/vouchers/${b.voucher}`)).status).toBe(200);
  });
});

describe('OpenAPI', () => {
  it('documents the admin API with tags and hides the dashboard', async () => {
    const doc = (await t.app.inject({ url: '/api/openapi.json' })).json();
    expect(doc.paths).toHaveProperty('/api/admin/v1/channels');
    expect(doc.paths['/api/admin/v1/channels/{channelId}/keys'].post.tags).toEqual(['Admin: channels']);
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/admin'))).toEqual([]);
  });
});

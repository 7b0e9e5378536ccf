import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { acceptInvitation } from '../../src/modules/admin/invitations.service.js';
import { buildTestApp, isPostgres, type TestApp } from '../helpers.js';
import { account, ADMIN_API, PASSWORD } from './admin-helpers.js';
import { DashboardClient } from './dashboard-client.js';

// D65 "self-service from zero" on the real app and database: an admin (the only account the
// operator CLI made) creates an organiser, invites a promoter; the promoter accepts, is signed in,
// creates a venue and uploads its seat map. Plus: expired, reused and replaced links, parallel
// acceptances (exactly one wins), admin-only pages, tokens that work and stop working.

let t: TestApp;
const admin = () => new DashboardClient(t.app);
const PROMOTER_PASSWORD = 'promoter password 1234';

const LAYOUT = {
  name: 'Sala Uno',
  size: { width: 400, height: 300 },
  categories: [{ name: 'Platea', color: '#3366cc' }],
  sectors: [
    {
      name: 'Platea',
      numbered: true,
      rows: [
        { label: 'A', seats: [{ number: '1', x: 0, y: 0, category: 'Platea' }, { number: '2', x: 30, y: 0, category: 'Platea' }] },
        { label: 'B', position: { x: 0, y: 30 }, seats: [{ number: '1', x: 0, y: 0, category: 'Platea' }] },
      ],
    },
    { name: 'Pista', numbered: false, capacity: 50 },
  ],
};

beforeAll(async () => {
  t = await buildTestApp({ demo: false });
  await account(t.ctx, 'root@taquilla.test');
}, 180_000);
afterAll(() => t?.close());

async function signedInAdmin() {
  const c = admin();
  expect((await c.login('root@taquilla.test')).statusCode).toBe(303);
  return c;
}

const linkIn = (body: string) => {
  const m = /value="http:\/\/taquilla\.test(\/admin\/invitations\/[A-Za-z0-9_-]{43})"/.exec(body);
  expect(m, 'the page shows the invitation link').not.toBeNull();
  return m![1]!;
};

async function organiserId(name: string) {
  const [row] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM organisers WHERE name = ${name}`);
  return Number(row!.id);
}

async function invite(c: DashboardClient, email: string, orgId: number) {
  await c.get('/admin/accounts');
  const res = await c.post('/admin/accounts', { email, role: 'promoter', organiser_id: String(orgId), method: 'invitation' });
  expect(res.statusCode).toBe(201);
  return linkIn(res.body);
}

async function accept(link: string, password = PROMOTER_PASSWORD, confirm = password) {
  const c = new DashboardClient(t.app);
  const form = await c.get(link);
  const res = await c.post(link, { password, confirm });
  return { c, form, res };
}

describe('starting from zero', () => {
  it('admin creates an organiser, invites a promoter; the promoter accepts, creates a venue and uploads its layout', async () => {
    const c = await signedInAdmin();
    // The navigation has the new pages.
    const channels = await c.get('/admin/channels');
    for (const href of ['/admin/organisers', '/admin/accounts', '/admin/tokens', '/admin/venues']) expect(channels.body).toContain(`href="${href}"`);

    await c.get('/admin/organisers');
    expect((await c.post('/admin/organisers', { name: 'Teatro Uno' })).headers.location).toBe('/admin/organisers?notice=created');
    const orgId = await organiserId('Teatro Uno');
    const orgs = await c.get('/admin/organisers');
    expect(orgs.body).toMatch(/<td>Teatro Uno<\/td><td>0<\/td><td>0<\/td><td>0<\/td>/);

    // Rename, then the accounts page offers the organiser by name.
    expect((await c.post(`/admin/organisers/${orgId}`, { name: 'Teatro Uno SL' })).statusCode).toBe(303);
    const accounts = await c.get('/admin/accounts');
    expect(accounts.body).toContain(`<option value="${orgId}">Teatro Uno SL</option>`);

    const link = await invite(c, 'Ana@Uno.test', orgId);
    const list = await c.get('/admin/accounts');
    expect(list.body).toMatch(/<td>ana@uno\.test<\/td><td>promoter<\/td><td>Teatro Uno SL<\/td>\s*<td><span class="badge">invited<\/span>/);
    // The link is stored only as a keyed hash.
    const [stored] = await queryRows<{ token_hash: string }>(t.ctx.db, sql`SELECT token_hash FROM account_invitations`);
    expect(stored!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored!.token_hash).not.toContain(link.split('/').pop()!);
    // Nobody signs in to an invited account before it has a password.
    expect((await new DashboardClient(t.app).login('ana@uno.test', '!invited')).statusCode).toBe(401);

    // The invitee: the form, a mismatch shown beside the field, then the password.
    const p = new DashboardClient(t.app);
    const form = await p.get(link);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('ana@uno.test');
    const mismatch = await p.post(link, { password: PROMOTER_PASSWORD, confirm: 'something else 123' });
    expect(mismatch.statusCode).toBe(422);
    expect(mismatch.body).toMatch(/aria-invalid="true"[^>]*>\s*<p class="field-error" id="[^"]+-error">must be the same password<\/p>/);
    const short = await p.post(link, { password: 'short', confirm: 'short' });
    expect(short.statusCode).toBe(422);
    expect(short.body).toContain('must have at least 12 characters');
    const ok = await p.post(link, { password: PROMOTER_PASSWORD, confirm: PROMOTER_PASSWORD });
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe('/admin/venues?notice=welcome');
    const welcome = await p.get(ok.headers.location!);
    expect(welcome.statusCode).toBe(200);
    expect(welcome.body).toContain('Welcome: your password is set');
    expect(welcome.body).toContain('ana@uno.test');
    // The promoter's navigation has no organisers page.
    expect(welcome.body).not.toContain('href="/admin/organisers"');

    // Signing in later works with the new password.
    expect((await new DashboardClient(t.app).login('ana@uno.test', PROMOTER_PASSWORD)).statusCode).toBe(303);

    // A venue: a missing name comes back beside the field, then the venue.
    const noName = await p.post('/admin/venues', { name: '', city: 'Sevilla' });
    expect(noName.statusCode).toBe(422);
    expect(noName.body).toContain('class="field-error"');
    expect(noName.body).toContain('value="Sevilla"');
    const created = await p.post('/admin/venues', { name: 'Sala Uno', city: 'Sevilla', address: 'Calle Mayor 1' });
    expect(created.statusCode).toBe(303);
    const venuePath = created.headers.location!.split('?')[0]!;
    const venueId = Number(venuePath.split('/').pop());
    const venue = await p.get(venuePath);
    expect(venue.body).toContain('Teatro Uno SL');
    expect(venue.body).toContain('Nothing yet.');
    // The designer (D65) is part of the dashboard: the venue page links to it.
    expect(venue.body).toContain(`<a class="button" href="/admin/venues/${venueId}/designer">Open in designer</a>`);

    // A broken layout is refused beside the text box; the good one becomes version 1.
    const broken = await p.post(`${venuePath}/layouts`, { format: 'taquilla', plan: '{"sectors": [' });
    expect(broken.statusCode).toBe(422);
    expect(broken.body).toMatch(/<p class="field-error" id="plan-text-error">is not valid JSON/);
    const invalid = await p.post(`${venuePath}/layouts`, { format: 'taquilla', plan: JSON.stringify({ sectors: [{ name: 'X', numbered: false }] }) });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.body).toContain('id="plan-text-error"');
    const saved = await p.post(`${venuePath}/layouts`, { format: 'taquilla', plan: JSON.stringify(LAYOUT) });
    expect(saved.statusCode).toBe(303);
    const withVersion = await p.get(venuePath);
    // version, seats, capacity (3 seats + 50 places), sessions
    expect(withVersion.body).toMatch(/<tr><td>1<\/td><td>3<\/td><td>53<\/td><td>0<\/td>/);

    // Download as pretix, upload that as version 2, download it as Taquilla.
    const pretix = await p.get(`${venuePath}/layouts/1/download?format=pretix`);
    expect(pretix.statusCode).toBe(200);
    expect(pretix.headers['content-disposition']).toBe('attachment; filename="sala-uno-v1-pretix.json"');
    const plan = JSON.parse(pretix.body);
    expect(plan.zones.length).toBeGreaterThan(0);
    expect((await p.post(`${venuePath}/layouts`, { format: 'pretix', plan: pretix.body })).statusCode).toBe(303);
    const v2 = await p.get(`${venuePath}/layouts/2/download?format=pretix`);
    expect(JSON.parse(v2.body)).toEqual(plan);
    const taquilla = await p.get(`${venuePath}/layouts/1/download`);
    expect(JSON.parse(taquilla.body)).toEqual(LAYOUT);

    // The admin sees the venue with its organiser's name; the counts moved.
    const venues = await c.get('/admin/venues');
    expect(venues.body).toMatch(/Sala Uno<\/a><\/td><td>Sevilla<\/td><td>Teatro Uno SL<\/td>\s*<td>version 2<\/td>/);
    expect((await c.get('/admin/organisers')).body).toMatch(/<td>Teatro Uno SL<\/td><td>0<\/td><td>1<\/td><td>1<\/td>/);

    // Another organiser's promoter does not see the venue (404, as if it did not exist).
    await c.post('/admin/organisers', { name: 'Otro' });
    const other = await accept(await invite(c, 'otro@otro.test', await organiserId('Otro')));
    expect(other.res.statusCode).toBe(303);
    expect((await other.c.get(`/admin/venues/${venueId}`)).statusCode).toBe(404);
    expect((await other.c.get(`${venuePath}/layouts/1/download`)).statusCode).toBe(404);
    expect((await other.c.get('/admin/venues')).body).not.toContain('Sala Uno');
  });

  it('a used link cannot be used again', async () => {
    const c = await signedInAdmin();
    const link = await invite(c, 'once@uno.test', await organiserId('Teatro Uno SL'));
    expect((await accept(link)).res.statusCode).toBe(303);
    const again = await accept(link, 'another password 5678');
    expect(again.form.statusCode).toBe(410);
    expect(again.form.body).toContain('This invitation has already been used');
    expect(again.res.statusCode).toBe(410);
    // The first password still holds; the second was never set.
    expect((await new DashboardClient(t.app).login('once@uno.test', 'another password 5678')).statusCode).toBe(401);
    expect((await new DashboardClient(t.app).login('once@uno.test', PROMOTER_PASSWORD)).statusCode).toBe(303);
  });

  it('a link expires after 72 hours; a new link replaces the old one', async () => {
    const c = await signedInAdmin();
    const link = await invite(c, 'late@uno.test', await organiserId('Teatro Uno SL'));
    t.clock.advance(72 * 3600_000 + 60_000);
    const late = await accept(link);
    expect(late.form.statusCode).toBe(410);
    expect(late.form.body).toContain('This invitation has expired');
    expect(late.res.statusCode).toBe(410);
    const c2 = await signedInAdmin();
    const list = await c2.get('/admin/accounts');
    expect(list.body).toMatch(/<td>late@uno\.test<\/td>[\s\S]*?invitation expired/);
    const [user] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM users WHERE email = 'late@uno.test'`);
    const resent = await c2.post(`/admin/accounts/${user!.id}/invitation`);
    expect(resent.statusCode).toBe(201);
    const fresh = linkIn(resent.body);
    expect(fresh).not.toBe(link);
    expect((await accept(fresh)).res.statusCode).toBe(303);
    // An older link of the same account, even within its time, says it was replaced.
    const replacedLink = await invite(c2, 'twice@uno.test', await organiserId('Teatro Uno SL'));
    const [u2] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM users WHERE email = 'twice@uno.test'`);
    linkIn((await c2.post(`/admin/accounts/${u2!.id}/invitation`)).body);
    const old = await accept(replacedLink);
    expect(old.form.statusCode).toBe(410);
    expect(old.form.body).toContain('A newer invitation was sent');
    // A link that never existed, and one that is not even well-formed.
    expect((await new DashboardClient(t.app).get(`/admin/invitations/${'x'.repeat(43)}`)).statusCode).toBe(404);
    expect([404, 422]).toContain((await new DashboardClient(t.app).get('/admin/invitations/%00bad')).statusCode);
  });

  it(`parallel acceptances of one link: exactly one succeeds (${isPostgres ? 'PostgreSQL' : 'PGlite'})`, async () => {
    const c = await signedInAdmin();
    const link = await invite(c, 'race@uno.test', await organiserId('Teatro Uno SL'));
    const token = link.split('/').pop()!;
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => acceptInvitation(t.ctx, token, { password: `racing password ${i}`, confirm: `racing password ${i}` })),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as { code?: string }).code).toBe('invitation_gone');
    const [row] = await queryRows<{ accepted: number; sessions: number }>(
      t.ctx.db,
      sql`SELECT (SELECT count(*)::int FROM account_invitations i JOIN users u ON u.id = i.user_id WHERE u.email = 'race@uno.test' AND i.accepted_at IS NOT NULL) AS accepted,
                 (SELECT count(*)::int FROM user_sessions s JOIN users u ON u.id = s.user_id WHERE u.email = 'race@uno.test') AS sessions`,
    );
    expect(Number(row!.accepted)).toBe(1);
    expect(Number(row!.sessions)).toBe(1);
  });
});

describe('what a promoter may not do', () => {
  it('is refused on admin-only pages and actions, and sees only its own account and tokens', async () => {
    const p = new DashboardClient(t.app);
    expect((await p.login('ana@uno.test', PROMOTER_PASSWORD)).statusCode).toBe(303);
    expect((await p.get('/admin/organisers')).statusCode).toBe(403);
    expect((await p.post('/admin/organisers', { name: 'Mine' })).statusCode).toBe(403);
    expect((await p.post('/admin/organisers/1', { name: 'Mine' })).statusCode).toBe(403);
    const accounts = await p.get('/admin/accounts');
    expect(accounts.statusCode).toBe(200);
    expect(accounts.body).toContain('ana@uno.test');
    expect(accounts.body).not.toContain('root@taquilla.test');
    expect(accounts.body).not.toContain('otro@otro.test');
    expect(accounts.body).not.toContain('action="/admin/accounts"');
    expect((await p.post('/admin/accounts', { email: 'x@uno.test', role: 'admin', method: 'password', password: PASSWORD })).statusCode).toBe(403);
    const [root] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM users WHERE email = 'root@taquilla.test'`);
    expect((await p.post(`/admin/accounts/${root!.id}/disable`)).statusCode).toBe(403);
    expect((await queryRows(t.ctx.db, sql`SELECT 1 FROM users WHERE email = 'x@uno.test'`)).length).toBe(0);

    // Its own token: made for itself whatever owner it names.
    await p.get('/admin/tokens');
    const made = await p.post('/admin/tokens', { name: 'my script', user_id: String(root!.id) });
    expect(made.statusCode).toBe(201);
    const token = /id="new-token" readonly value="(at_[A-Za-z0-9]+)"/.exec(made.body)![1]!;
    const me = await t.app.inject({ url: `${ADMIN_API}/me`, headers: { authorization: `Bearer ${token}` } });
    expect(me.json().data.email).toBe('ana@uno.test');
    const tokens = await p.get('/admin/tokens');
    expect(tokens.body).toContain('my script');
    expect(tokens.body).not.toContain('root@taquilla.test');
    // The admin's tokens are not the promoter's to revoke.
    const [rootToken] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT t.id FROM admin_api_tokens t JOIN users u ON u.id = t.user_id WHERE u.email = 'root@taquilla.test'`);
    expect((await p.post(`/admin/tokens/${rootToken!.id}/revoke`)).statusCode).toBe(404);
  });

  it('forms without the CSRF token are refused', async () => {
    const c = await signedInAdmin();
    expect((await c.post('/admin/organisers', { name: 'No CSRF' }, { csrf: null })).statusCode).toBe(403);
    expect((await c.post('/admin/accounts', { email: 'nocsrf@uno.test', role: 'admin', method: 'invitation' }, { csrf: 'wrong' })).statusCode).toBe(403);
    expect((await queryRows(t.ctx.db, sql`SELECT 1 FROM organisers WHERE name = 'No CSRF'`)).length).toBe(0);
  });
});

describe('accounts and tokens', () => {
  it('a password account, errors beside the fields, disabling and enabling', async () => {
    const c = await signedInAdmin();
    await c.get('/admin/accounts');
    const bad = await c.post('/admin/accounts', { email: 'not-an-email', role: 'promoter', organiser_id: '', method: 'password', password: 'short' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toMatch(/value="not-an-email"[^>]*aria-invalid="true"[^>]*>\s*<p class="field-error"[^>]*>must be an e-mail address/);
    expect(bad.body).toMatch(/<p class="field-error"[^>]*>is required for a promoter<\/p>/);
    const dup = await c.post('/admin/accounts', { email: 'ana@uno.test', role: 'admin', method: 'password', password: PASSWORD });
    expect(dup.statusCode).toBe(422);
    expect(dup.body).toContain('an account with this e-mail already exists');
    const weak = await c.post('/admin/accounts', { email: 'ops2@taquilla.test', role: 'admin', method: 'password', password: 'short' });
    expect(weak.statusCode).toBe(422);
    expect(weak.body).toMatch(/<p class="field-error"[^>]*>must have at least 12 characters<\/p>/);
    const created = await c.post('/admin/accounts', { email: 'ops2@taquilla.test', role: 'admin', method: 'password', password: PASSWORD });
    expect(created.statusCode).toBe(303);
    const ops = new DashboardClient(t.app);
    expect((await ops.login('ops2@taquilla.test')).statusCode).toBe(303);

    const [user] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM users WHERE email = 'ops2@taquilla.test'`);
    await c.get('/admin/accounts');
    expect((await c.post(`/admin/accounts/${user!.id}/disable`)).headers.location).toBe('/admin/accounts?notice=disabled');
    expect((await ops.get('/admin/channels')).headers.location).toBe('/admin/login');
    expect((await new DashboardClient(t.app).login('ops2@taquilla.test')).statusCode).toBe(401);
    expect((await c.get('/admin/accounts')).body).toMatch(/<td>ops2@taquilla\.test<\/td>[\s\S]*?badge off">disabled/);
    expect((await c.post(`/admin/accounts/${user!.id}/enable`)).statusCode).toBe(303);
    expect((await new DashboardClient(t.app).login('ops2@taquilla.test')).statusCode).toBe(303);
    // One's own account cannot be disabled.
    const [root] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM users WHERE email = 'root@taquilla.test'`);
    expect((await c.post(`/admin/accounts/${root!.id}/disable`)).statusCode).toBe(409);
  });

  it('a token created in the dashboard works on /api/admin/v1 until it is revoked', async () => {
    const c = await signedInAdmin();
    await c.get('/admin/tokens');
    expect((await c.post('/admin/tokens', { name: '' })).statusCode).toBe(422);
    const [ana] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM users WHERE email = 'ana@uno.test'`);
    const made = await c.post('/admin/tokens', { name: 'nightly import', user_id: String(ana!.id) });
    expect(made.statusCode).toBe(201);
    const token = /id="new-token" readonly value="(at_[A-Za-z0-9]{44})"/.exec(made.body)![1]!;
    const [stored] = await queryRows<{ token_hash: string }>(t.ctx.db, sql`SELECT token_hash FROM admin_api_tokens WHERE name = 'nightly import'`);
    expect(stored!.token_hash).not.toContain(token);

    const before = await c.get('/admin/tokens');
    expect(before.body).toMatch(/nightly import <span class="hint">…\w{4}<\/span><\/td><td>ana@uno\.test<\/td><td>[^<]+<\/td>\s*<td><span class="hint">not yet<\/span>/);
    const me = await t.app.inject({ url: `${ADMIN_API}/me`, headers: { authorization: `Bearer ${token}` } });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.role).toBe('promoter');
    const venues = await t.app.inject({ url: `${ADMIN_API}/venues`, headers: { authorization: `Bearer ${token}` } });
    expect(venues.json().data.map((v: { name: string }) => v.name)).toEqual(['Sala Uno']);
    const after = await c.get('/admin/tokens');
    expect(after.body).not.toMatch(/nightly import[\s\S]{0,200}not yet/);

    const [row] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM admin_api_tokens WHERE name = 'nightly import'`);
    expect((await c.post(`/admin/tokens/${row!.id}/revoke`)).headers.location).toBe('/admin/tokens?notice=token_revoked');
    const refused = await t.app.inject({ url: `${ADMIN_API}/me`, headers: { authorization: `Bearer ${token}` } });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('invalid_token');
    expect((await c.post(`/admin/tokens/${row!.id}/revoke`)).statusCode).toBe(409);
    expect((await c.get('/admin/tokens')).body).toMatch(/nightly import[\s\S]*?badge off">revoked/);
  });
});

describe('bad input', () => {
  it('is a 422 page with the error beside the field, never a 500', async () => {
    const c = await signedInAdmin();
    await c.get('/admin/accounts');
    for (const organiser_id of ['99999999999', '1e308', 'abc', '-1', '0']) {
      const res = await c.post('/admin/accounts', { email: 'huge@uno.test', role: 'promoter', organiser_id, method: 'invitation' });
      expect(res.statusCode, organiser_id).toBe(422);
      expect(res.body).toMatch(/<p class="field-error"[^>]*>must be an organiser<\/p>/);
    }
    await c.get('/admin/tokens');
    for (const user_id of ['99999999999', 'abc', '123456']) expect((await c.post('/admin/tokens', { name: 'x', user_id })).statusCode, user_id).toBe(422);
    await c.get('/admin/venues');
    expect((await c.post('/admin/venues', { name: 'V', organiser_id: '99999999999' })).statusCode).toBe(422);
    expect((await c.post('/admin/venues', { name: 'V', organiser_id: '123456' })).statusCode).toBe(404);
    expect((await c.post('/admin/venues', { name: 'x'.repeat(301), organiser_id: '1' })).statusCode).toBe(422);
    expect((await c.post('/admin/organisers', { name: 'a\u0000b' })).statusCode).toBe(422);
    expect((await c.post('/admin/organisers', { name: 'x'.repeat(201) })).statusCode).toBe(422);
    expect((await c.get('/admin/venues/99999999999')).statusCode).toBe(404);
    expect((await c.get('/admin/venues/123456')).statusCode).toBe(404);
    expect((await c.get('/admin/venues/123456/layouts/1/download')).statusCode).toBe(404);
    expect((await c.post('/admin/accounts/123456/disable')).statusCode).toBe(404);
    expect((await c.post('/admin/accounts/123456/invitation')).statusCode).toBe(404);
    expect((await c.post('/admin/tokens/123456/revoke')).statusCode).toBe(404);
    const venues = await c.get('/admin/venues');
    const venueId = /href="\/admin\/venues\/(\d+)"/.exec(venues.body)![1];
    expect((await c.post(`/admin/venues/${venueId}/layouts`, { format: 'svg', plan: '{}' })).statusCode).toBe(422);
    expect((await c.post(`/admin/venues/${venueId}/layouts`, { format: 'taquilla', plan: '[1,2]' })).statusCode).toBe(422);
    expect((await c.get(`/admin/venues/${venueId}/layouts/99/download`)).statusCode).toBe(404);
  });
});

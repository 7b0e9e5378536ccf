import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp, type TestApp } from '../helpers.js';
import { account, api, apiAs, setUpOtherOrganiser } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';
import { demoSessions, device, sellTickets, startSessionIn } from './checkin-helpers.js';

// Lists and devices in the admin API and the dashboard, with promoter isolation (D54).

let t: TestApp;
let admin: ReturnType<typeof api>;
let promoterA: ReturnType<typeof api>;
let b: Awaited<ReturnType<typeof setUpOtherOrganiser>>;
let demoOrganiser: number;
let session: number;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await apiAs(t, 'admin@taquilla.test');
  const sessions = await demoSessions(t.ctx);
  session = sessions[0]!.id;
  demoOrganiser = sessions[0]!.organiser_id;
  await startSessionIn(t, session, 3_600_000);
  promoterA = await apiAs(t, 'promoter-a@taquilla.test', demoOrganiser);
  b = await setUpOtherOrganiser(t.ctx, t.app, admin);
}, 120_000);
afterAll(() => t?.close());

describe('admin API', () => {
  let listId: number;

  it('a promoter creates a list of its sessions, and a device whose token works at once', async () => {
    const list = await promoterA.post('/checkin/lists', { name: 'Main door', session_ids: [session], allow_reentry: true });
    expect(list.status).toBe(201);
    expect(list.body.data).toMatchObject({ organiser_id: demoOrganiser, name: 'Main door', session_ids: [session], sector_ids: null, allow_reentry: true, opens_minutes_before: 360 });
    listId = list.body.data.id;
    const created = await promoterA.post('/checkin/devices', { name: 'Gate 1', list_ids: [listId] });
    expect(created.status).toBe(201);
    const d = created.body.data;
    expect(d.token).toMatch(/^ck_[0-9A-Za-z]{43}$/);
    expect(d.setup_url).toBe(`http://taquilla.test/checkin/#setup=${d.token}`);
    expect(d.token_last4).toBe(d.token.slice(-4));
    // Kept hashed: the token is nowhere in the database.
    const rows = await queryRows<{ n: string }>(t.ctx.db, sql`SELECT count(*) AS n FROM checkin_devices WHERE token_hash = ${d.token}`);
    expect(Number(rows[0]!.n)).toBe(0);
    // ... and never listed again.
    expect(JSON.stringify((await promoterA.get('/checkin/devices')).body)).not.toContain(d.token);

    const gate = device(t, d.token);
    const { tickets } = await sellTickets(t, { sessionId: session });
    expect((await gate.scan(listId, { secret: tickets[0]!.secret })).json().result).toBe('valid');
    expect((await gate.scan(listId, { secret: tickets[0]!.secret })).json().result).toBe('already_used');

    const counts = await promoterA.get(`/checkin/lists/${listId}/counts`);
    expect(counts.body.data.sessions[0]).toMatchObject({ session_id: session, checked_in: 1, inside: 1 });
    expect(counts.body.data.sessions[0].sold).toBeGreaterThanOrEqual(1);
    expect(counts.body.data.devices).toEqual([{ device_id: d.id, device_name: 'Gate 1', entries: 1, refused: 1 }]);
    const twice = await promoterA.get(`/checkin/lists/${listId}/scans?twice=true`);
    expect(twice.body.data).toHaveLength(1);
    expect(twice.body.data[0]).toMatchObject({ result: 'already_used', device_name: 'Gate 1', ticket_id: tickets[0]!.id, first_scan: { device_name: 'Gate 1' } });
    expect((await promoterA.get(`/checkin/lists/${listId}/scans`)).body.data).toHaveLength(2);

    const revoked = await promoterA.del(`/checkin/devices/${d.id}`);
    expect(revoked.body.data.revoked_at).not.toBeNull();
    expect((await gate.info()).statusCode).toBe(401);
  });

  it('edits a list', async () => {
    const res = await promoterA.patch(`/checkin/lists/${listId}`, { name: 'North door', allow_reentry: false, opens_minutes_before: 60 });
    expect(res.body.data).toMatchObject({ name: 'North door', allow_reentry: false, opens_minutes_before: 60, session_ids: [session] });
  });

  it("isolates organisers: another organiser's lists and devices are 404, its sessions unknown", async () => {
    const notFound = { status: 404, body: { code: 'not_found' } };
    expect(await b.promoterB.get(`/checkin/lists/${listId}`)).toMatchObject(notFound);
    expect(await b.promoterB.get(`/checkin/lists/${listId}/counts`)).toMatchObject(notFound);
    expect(await b.promoterB.get(`/checkin/lists/${listId}/scans`)).toMatchObject(notFound);
    expect(await b.promoterB.patch(`/checkin/lists/${listId}`, { name: 'mine' })).toMatchObject(notFound);
    expect((await b.promoterB.get('/checkin/lists')).body.data).toEqual([]);
    const devices = (await promoterA.get('/checkin/devices')).body.data;
    expect(await b.promoterB.del(`/checkin/devices/${devices[0].id}`)).toMatchObject(notFound);
    const foreign = await b.promoterB.post('/checkin/lists', { name: 'Steal', session_ids: [session] });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors.session_ids).toBeDefined();
    const foreignList = await b.promoterB.post('/checkin/devices', { name: 'Steal', list_ids: [listId] });
    expect(foreignList.status).toBe(422);
    expect(await b.promoterB.post('/checkin/lists', { organiser_id: demoOrganiser, name: 'x', session_ids: [b.ids.session] })).toMatchObject(notFound);
    // B's own list of B's session is fine; a device of B for A's list is not, even through the admin.
    const own = await b.promoterB.post('/checkin/lists', { name: 'B door', session_ids: [b.ids.session] });
    expect(own.status).toBe(201);
    expect((await admin.post('/checkin/devices', { organiser_id: b.ids.organiser, name: 'mixed', list_ids: [own.body.data.id, listId] })).status).toBe(422);
  });

  it('refuses sectors of another venue and bad input with 422', async () => {
    const [sector] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sectors WHERE venue_id = ${b.ids.venue} LIMIT 1`);
    const res = await promoterA.post('/checkin/lists', { name: 'x', session_ids: [session], sector_ids: [sector!.id] });
    expect(res.status).toBe(422);
    expect(res.body.errors.sector_ids).toBeDefined();
    expect((await promoterA.post('/checkin/lists', { name: '', session_ids: [session] })).status).toBe(422);
    expect((await promoterA.post('/checkin/lists', { name: 'x', session_ids: [] })).status).toBe(422);
    expect((await promoterA.post('/checkin/devices', { name: 'x', list_ids: [] })).status).toBe(422);
    expect((await admin.post('/checkin/lists', { name: 'x', session_ids: [session] })).status).toBe(422);
  });

  it('signing keys: admins list and rotate them; promoters may not', async () => {
    expect((await promoterA.get('/checkin/signing-keys')).status).toBe(403);
    expect((await promoterA.post('/checkin/signing-keys/rotate')).status).toBe(403);
    const before = (await admin.get('/checkin/signing-keys')).body.data;
    expect(before.filter((k: { state: string }) => k.state === 'active')).toHaveLength(1);
    const rotated = await admin.post('/checkin/signing-keys/rotate');
    expect(rotated.status).toBe(201);
    expect(rotated.body.data.retired).toBe(before.find((k: { state: string }) => k.state === 'active').kid);
    const after = (await admin.get('/checkin/signing-keys')).body.data;
    expect(after.find((k: { kid: string }) => k.kid === rotated.body.data.kid).state).toBe('active');
    expect(after.find((k: { kid: string }) => k.kid === rotated.body.data.retired).state).toBe('retired');
  });
});

describe('dashboard', () => {
  it('creates a list and a device (token once, with its setup QR code), shows the door live, revokes the device', async () => {
    await account(t.ctx, 'promoter-dash@taquilla.test', demoOrganiser);
    const browser = new DashboardClient(t.app);
    await browser.login('promoter-dash@taquilla.test');
    const index = await browser.get('/admin/checkin');
    expect(index.statusCode).toBe(200);
    expect(index.body).toContain('New check-in list');
    expect(index.body).toContain(`value="${session}"`);
    expect(index.body).not.toContain(`value="${b.ids.session}"`);

    // Without the CSRF token: refused.
    expect((await browser.post('/admin/checkin/lists', { name: 'Dash door', session_ids: String(session) }, { csrf: 'forged' })).statusCode).toBe(403);
    const created = await browser.post('/admin/checkin/lists', { name: 'Dash door', session_ids: String(session), allow_reentry: '1', opens_minutes_before: '120' });
    expect(created.statusCode).toBe(303);
    const listUrl = created.headers.location!.split('?')[0]!;
    const listId = Number(listUrl.split('/').pop());

    await browser.get('/admin/checkin');
    const dev = await browser.post('/admin/checkin/devices', { name: 'Dash gate', list_ids: String(listId) });
    expect(dev.statusCode).toBe(201);
    const token = /id="device-token" readonly value="(ck_[0-9A-Za-z]+)"/.exec(dev.body)![1]!;
    expect(dev.body).toContain(`http://taquilla.test/checkin/#setup=${token}`);
    expect(dev.body).toMatch(/<img class="qr"[^>]+src="data:image\/svg\+xml;base64,/);

    const { tickets } = await sellTickets(t, { sessionId: session });
    const gate = device(t, token);
    await gate.scan(listId, { secret: tickets[0]!.secret });
    await gate.scan(listId, { secret: tickets[0]!.secret, direction: 'exit' });
    await gate.scan(listId, { secret: tickets[0]!.secret });
    await gate.scan(listId, { secret: tickets[0]!.secret });
    const door = await browser.get(listUrl);
    expect(door.statusCode).toBe(200);
    expect(door.body).toContain('Checked in per session');
    expect(door.body).toContain('Inside now');
    expect(door.body).toContain('Tried to enter twice');
    expect(door.body).toContain('already used');
    expect(door.body).toContain('Dash gate');
    expect(door.body).toContain('García');

    await browser.get('/admin/checkin');
    const devices = (await promoterA.get('/checkin/devices')).body.data as Array<{ id: number; name: string }>;
    const id = devices.find((d) => d.name === 'Dash gate')!.id;
    expect((await browser.post(`/admin/checkin/devices/${id}/revoke`)).statusCode).toBe(303);
    expect((await gate.info()).statusCode).toBe(401);
    // Another organiser's list page is a 404 page.
    const other = new DashboardClient(t.app);
    await other.login('promoter-b@taquilla.test');
    expect((await other.get(listUrl)).statusCode).toBe(404);
  });
});

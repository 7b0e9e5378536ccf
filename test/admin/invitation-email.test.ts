import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { acceptInvitation } from '../../src/modules/admin/invitations.service.js';
import { processEmailQueue } from '../../src/modules/tickets/email-queue.service.js';
import { buildTestApp, type TestApp } from '../helpers.js';
import { freePort, headerProblem, headersOf, SmtpPeer } from '../smtp-peer.js';
import { api, apiAs } from './admin-helpers.js';
import { DashboardClient } from './dashboard-client.js';

// D65: the invitation of a new dashboard account goes out by e-mail through the durable queue, to a
// real (strict) SMTP peer. One e-mail per invitation, whatever the number of workers; a replaced,
// used or expired link is not mailed; the database holds no usable link (nonce + HMAC only).

let t: TestApp;
let peer: SmtpPeer;
let adminApi: ReturnType<typeof api>;
let orgId: number;

beforeAll(async () => {
  peer = new SmtpPeer(await freePort(), { strict: true });
  await peer.start();
  t = await buildTestApp({ demo: false, env: { SMTP_URL: `smtp://127.0.0.1:${peer.port}`, MAIL_FROM: 'Taquilla <dashboard@taquilla.test>' } });
  adminApi = await apiAs(t, 'root@taquilla.test');
  const org = await adminApi.post('/organisers', { name: 'Teatro Invitado' });
  orgId = org.body.data.id;
}, 180_000);
afterAll(async () => {
  await peer.stop();
  await t?.close();
});

const mailsTo = (email: string) => peer.received.filter((m) => m.to.includes(email));
/** The message decoded enough to read its links (quoted-printable soft breaks and `=`). */
const decoded = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
const linkOf = (raw: string) => /http:\/\/taquilla\.test\/admin\/invitations\/[A-Za-z0-9_-]{43}/.exec(decoded(raw))?.[0];
const linkOnPage = (body: string) => /value="(http:\/\/taquilla\.test\/admin\/invitations\/[A-Za-z0-9_-]{43})"/.exec(body)?.[1];

async function signedInAdmin() {
  const c = new DashboardClient(t.app);
  expect((await c.login('root@taquilla.test')).statusCode).toBe(303);
  await c.get('/admin/accounts');
  return c;
}

async function outboxOf(email: string) {
  return queryRows<{ status: string; invitation_id: number | null }>(
    t.ctx.db,
    sql`SELECT status, invitation_id FROM email_outbox WHERE kind = 'account_invitation' AND recipient = ${email} ORDER BY id`,
  );
}

describe('the invitation e-mail (D65)', () => {
  it('the dashboard invites: the link shown once is the link e-mailed, through a strict relay, once', async () => {
    const c = await signedInAdmin();
    const res = await c.post('/admin/accounts', { email: 'ana@example.com', role: 'promoter', organiser_id: String(orgId), method: 'invitation' });
    expect(res.statusCode).toBe(201);
    expect(res.body).toContain('on its way to ana@example.com by e-mail');
    const shown = linkOnPage(res.body)!;
    expect(shown).toBeTruthy();
    expect(await outboxOf('ana@example.com')).toMatchObject([{ status: 'queued' }]);

    const r = await processEmailQueue(t.ctx);
    expect(r.sent).toBe(1);
    expect(peer.refused).toEqual([]);
    const [mail, ...more] = mailsTo('ana@example.com');
    expect(more).toEqual([]);
    expect(headerProblem(mail!.raw)).toBeNull();
    const h = headersOf(mail!.raw);
    expect(h.get('subject')).toBe('Your invitation to the ticketing dashboard at taquilla.test');
    // Replies go to the admin who invited.
    expect(h.get('reply-to')).toBe('root@taquilla.test');
    expect(linkOf(mail!.raw)).toBe(shown);
    expect(decoded(mail!.raw)).toContain('a promoter account for Teatro Invitado');
    // A second run sends nothing more.
    expect((await processEmailQueue(t.ctx)).claimed).toBe(0);
    expect(mailsTo('ana@example.com')).toHaveLength(1);

    // The e-mailed link works (once).
    const page = await new DashboardClient(t.app).get(new URL(shown).pathname);
    expect(page.statusCode).toBe(200);
  });

  it('the database holds no usable link: neither the invitation nor the outbox row carries the token', async () => {
    const c = await signedInAdmin();
    const res = await c.post('/admin/accounts', { email: 'secret@example.com', role: 'admin', method: 'invitation' });
    const token = linkOnPage(res.body)!.split('/').pop()!;
    const [dump] = await queryRows<{ rows: string }>(
      t.ctx.db,
      sql`SELECT (SELECT coalesce(string_agg(row_to_json(i)::text, ''), '') FROM account_invitations i) ||
                 (SELECT coalesce(string_agg(row_to_json(o)::text, ''), '') FROM email_outbox o) AS rows`,
    );
    expect(dump!.rows).not.toContain(token);
    await processEmailQueue(t.ctx);
    expect(linkOf(mailsTo('secret@example.com')[0]!.raw)).toContain(token);
    expect(decoded(mailsTo('secret@example.com')[0]!.raw)).toContain('an administrator account');
  });

  it('a new link before the first e-mail went out: only the new link is mailed; the old one is replaced', async () => {
    const c = await signedInAdmin();
    const first = linkOnPage((await c.post('/admin/accounts', { email: 'bea@example.com', role: 'promoter', organiser_id: String(orgId), method: 'invitation' })).body)!;
    const [{ id }] = (await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM users WHERE email = 'bea@example.com'`)) as [{ id: number }];
    const again = await adminApi.post(`/users/${id}/invitation`);
    expect(again.status).toBe(201);
    const second = again.body.data.invitation.link as string;
    expect(second).not.toBe(first);
    const r = await processEmailQueue(t.ctx);
    expect(r).toMatchObject({ sent: 1, skipped: 1 });
    expect(mailsTo('bea@example.com').map((m) => linkOf(m.raw))).toEqual([second]);
    expect((await outboxOf('bea@example.com')).map((o) => o.status)).toEqual(['skipped', 'sent']);
    const old = await new DashboardClient(t.app).get(new URL(first).pathname);
    expect(old.statusCode).toBe(410);
  });

  it('an invitation accepted, or expired, before its e-mail went out is not mailed', async () => {
    const accepted = await adminApi.post('/users', { email: 'quick@example.com', role: 'admin', invite: true });
    expect(accepted.status).toBe(201);
    await acceptInvitation(t.ctx, accepted.body.data.invitation.link.split('/').pop(), { password: 'a long password 123', confirm: 'a long password 123' });
    const late = await adminApi.post('/users', { email: 'late@example.com', role: 'admin', invite: true });
    expect(late.status).toBe(201);
    t.clock.advance(72 * 3600_000 + 1000);
    const r = await processEmailQueue(t.ctx);
    expect(r).toMatchObject({ sent: 0, skipped: 2 });
    expect(mailsTo('quick@example.com')).toEqual([]);
    expect(mailsTo('late@example.com')).toEqual([]);
  });

  it('parallel workers send each invitation exactly once', async () => {
    const emails = Array.from({ length: 6 }, (_, i) => `many${i}@example.com`);
    for (const email of emails) expect((await adminApi.post('/users', { email, role: 'admin', invite: true })).status).toBe(201);
    const results = await Promise.all(Array.from({ length: 4 }, (_, i) => processEmailQueue(t.ctx, { owner: `worker-${i}`, limit: 3 })));
    const again = await processEmailQueue(t.ctx, { owner: 'worker-late' });
    expect(results.reduce((n, r) => n + r.sent, 0) + again.sent).toBe(6);
    for (const email of emails) expect(mailsTo(email), email).toHaveLength(1);
    // The outbox allows one row per invitation.
    const [row] = await queryRows<{ invitation_id: number }>(t.ctx.db, sql`SELECT invitation_id FROM email_outbox WHERE recipient = 'many0@example.com'`);
    await expect(
      t.ctx.db.execute(sql`INSERT INTO email_outbox (kind, invitation_id, recipient, next_attempt_at, created_at) VALUES ('account_invitation', ${row!.invitation_id}, 'x@example.com', now(), now())`),
    ).rejects.toThrow();
  });
});

describe('inviting through the admin API', () => {
  it('POST /users with invite: true answers the link once and queues its e-mail; password and invite together, or neither, are 422', async () => {
    const res = await adminApi.post('/users', { email: 'Api.Invited@Example.com', role: 'promoter', organiser_id: orgId, invite: true });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ email: 'api.invited@example.com', role: 'promoter', organiser_id: orgId, invitation: { link: expect.stringMatching(/\/admin\/invitations\/[A-Za-z0-9_-]{43}$/) } });
    expect(await outboxOf('api.invited@example.com')).toHaveLength(1);
    const both = await adminApi.post('/users', { email: 'both@example.com', role: 'admin', invite: true, password: 'a long password 123' });
    expect(both.status).toBe(422);
    expect(both.body.errors.invite).toBeTruthy();
    const neither = await adminApi.post('/users', { email: 'neither@example.com', role: 'admin' });
    expect(neither.status).toBe(422);
    expect(neither.body.errors.password).toBeTruthy();
    // With a password, as before: no invitation, no e-mail.
    const pw = await adminApi.post('/users', { email: 'pw@example.com', role: 'admin', password: 'a long password 123' });
    expect(pw.status).toBe(201);
    expect(pw.body.data.invitation).toBeNull();
    expect(await outboxOf('pw@example.com')).toEqual([]);
    // Both ways refuse alike: an e-mail address that has an account is 409, an unknown organiser 404.
    for (const way of [{ invite: true }, { password: 'a long password 123' }]) {
      const taken = await adminApi.post('/users', { email: 'PW@example.com', role: 'admin', ...way });
      expect(taken.status, JSON.stringify(way)).toBe(409);
      expect(taken.body).toMatchObject({ code: 'conflict', message: 'An account with e-mail pw@example.com already exists' });
      const nowhere = await adminApi.post('/users', { email: 'nowhere@example.com', role: 'promoter', organiser_id: 999999, ...way });
      expect(nowhere.status, JSON.stringify(way)).toBe(404);
    }
  });

  it('a new link for an account with a password is 409; for no account 404; a promoter may not invite (403)', async () => {
    const [{ id }] = (await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM users WHERE email = 'pw@example.com'`)) as [{ id: number }];
    expect((await adminApi.post(`/users/${id}/invitation`)).status).toBe(409);
    expect((await adminApi.post('/users/999999/invitation')).status).toBe(404);
    const promoter = await apiAs(t, 'promoter-api@example.com', orgId);
    expect((await promoter.post('/users', { email: 'no@example.com', role: 'admin', invite: true })).status).toBe(403);
    expect((await promoter.post(`/users/${id}/invitation`)).status).toBe(403);
  });
});

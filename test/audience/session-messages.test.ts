import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { processEmailQueue, type MailSender } from '../../src/modules/tickets/email-queue.service.js';
import type { TicketEmail } from '../../src/modules/tickets/tickets.email.js';
import type { TestApp } from '../helpers.js';
import { ADMIN_API, type api } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';
import { audienceApp, sell, type Sale } from './audience-fixtures.js';

// D67: a message to every ticket holder of a session, sent once per recipient through the durable
// e-mail queue, audited; admin API and dashboard.

let t: TestApp;
let admin: ReturnType<typeof api>;
let adminToken: string;
let promoterB: ReturnType<typeof api>;
let ana: Sale;
let refundedSale: Sale;
const sent: TicketEmail[] = [];
const sender: MailSender = { describe: 'memory', send: async (m) => void sent.push(m) };

beforeAll(async () => {
  ({ t, admin, adminToken, promoterB } = await audienceApp());
  await t.ctx.db.execute(sql`UPDATE organisers SET reply_to_email = 'taquilla@teatro.example' WHERE id = 1`);
  // Two orders of one buyer (the address written differently), one of another in English, one
  // refunded (no valid ticket: not a holder any more). Session 2 has no ticket holder.
  ana = await sell(t, 'b', { name: 'Ana', surname: 'García', email: 'ana@example.com' }, { seats: 2 });
  await sell(t, 'd', { name: 'Ana', surname: 'García', email: 'Ana@Example.com' }, { seats: 1 });
  await sell(t, 'b', { name: 'Bob', surname: 'Smith', email: 'bob@example.org' }, { seats: 1, lang: 'en' });
  refundedSale = await sell(t, 'b', { name: 'Eva', surname: 'Gone', email: 'eva@example.net' }, { seats: 1 });
  expect((await admin.post(`/orders/${refundedSale.reference}/refund`, { reason: 'test' })).status).toBe(201);
  // The queue is drained of the ticket and refund e-mails first.
  for (let i = 0; i < 3; i++) await processEmailQueue(t.ctx, { sender, limit: 100 });
  sent.length = 0;
}, 180_000);
afterAll(() => t.close());

const messagesUrl = (sessionId: number) => `/sessions/${sessionId}/messages`;
const outbox = (messageId: number) =>
  queryRows<{ recipient: string; lang: string; status: string; message_key: string }>(
    t.ctx.db,
    sql`SELECT recipient, lang, status, message_key FROM email_outbox WHERE session_message_id = ${messageId} ORDER BY lower(recipient)`,
  );

describe('POST /api/admin/v1/sessions/{id}/messages (D67)', () => {
  it('queues one e-mail per ticket holder address, in their language; sent once; kept and audited', async () => {
    const res = await admin.post(messagesUrl(ana.sessionId), { subject: 'Doors open at 19:00', body: 'Dear audience,\n\nthe doors open half an hour earlier.\nBring your ticket.' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: 201, success: true });
    const message = res.body.data;
    expect(message).toMatchObject({ session_id: ana.sessionId, subject: 'Doors open at 19:00', sent_by: 'root@taquilla.test', recipients: 2, emails: { sent: 0, queued: 2, failed: 0 } });
    const rows = await outbox(message.id);
    expect(rows.map((r) => [r.recipient.toLowerCase(), r.lang])).toEqual([
      ['ana@example.com', 'es'],
      ['bob@example.org', 'en'],
    ]);

    for (let i = 0; i < 3; i++) await processEmailQueue(t.ctx, { sender, limit: 100 });
    const mine = sent.filter((m) => m.subject === 'Doors open at 19:00');
    expect(mine.map((m) => m.to.toLowerCase()).sort()).toEqual(['ana@example.com', 'bob@example.org']);
    const bob = mine.find((m) => m.to === 'bob@example.org')!;
    expect(bob.text).toContain('A message from');
    expect(bob.text).toContain('the doors open half an hour earlier.\nBring your ticket.');
    expect(bob.html).toMatch(/^<!DOCTYPE html><html lang="en">/);
    expect(bob.html).toContain('the doors open half an hour earlier.<br/>Bring your ticket.');
    expect(bob.replyTo).toBe('taquilla@teatro.example');
    expect(bob.messageId).toBe(`<${rows.find((r) => r.recipient === 'bob@example.org')!.message_key}@${/@([^>]+)>?$/.exec(t.config.mailFrom)![1]}>`);
    expect(mine.find((m) => m.to.toLowerCase() === 'ana@example.com')!.text).toContain('Mensaje de');
    expect(sent.some((m) => m.to === 'eva@example.net')).toBe(false);

    const list = await admin.get(messagesUrl(ana.sessionId));
    expect(list.body.data[0]).toMatchObject({ id: message.id, recipients: 2, emails: { sent: 2, queued: 0, failed: 0 } });
    const audit = await queryRows<{ details: unknown }>(t.ctx.db, sql`SELECT details FROM audit_log WHERE action = 'session.message' AND target_id = ${String(ana.sessionId)}`);
    expect(audit).toHaveLength(1);
    expect(typeof audit[0]!.details === 'string' ? JSON.parse(audit[0]!.details) : audit[0]!.details).toMatchObject({ message_id: message.id, recipients: 2 });
  });

  it('a repeat with the same Idempotency-Key sends nothing again', async () => {
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: `${ADMIN_API}${messagesUrl(ana.sessionId)}`,
        headers: { authorization: `Bearer ${adminToken}`, 'idempotency-key': 'msg-once-1' },
        payload: { subject: 'Parking', body: 'The car park opens at 18:00.' },
      });
    const [first, again] = [await post(), await post()];
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json().data.id).toBe(first.json().data.id);
    const [n] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM session_messages WHERE subject = 'Parking'`);
    expect(n!.n).toBe(1);
  });

  it('refuses unknown fields, an empty or multi-line subject; 409 without ticket holders; 404 for another organiser; nothing is recorded', async () => {
    const before = await queryRows(t.ctx.db, sql`SELECT id FROM session_messages`);
    const extra = await admin.post(messagesUrl(ana.sessionId), { subject: 'x', body: 'y', to: 'everyone' });
    expect(extra.status).toBe(422);
    expect(extra.body.errors.to).toBeDefined();
    expect((await admin.post(messagesUrl(ana.sessionId), { subject: '', body: 'y' })).body.errors.subject).toBeDefined();
    expect((await admin.post(messagesUrl(ana.sessionId), { subject: '   ', body: 'y' })).body.errors.subject).toEqual(['is required']);
    expect((await admin.post(messagesUrl(ana.sessionId), { subject: 'a\nBcc: x@y.example', body: 'y' })).body.errors.subject).toEqual(['must be one line']);
    expect((await admin.post(messagesUrl(ana.sessionId), { subject: 'x', body: 12 })).status).toBe(422);
    const [empty] = await queryRows<{ id: number }>(
      t.ctx.db,
      sql`SELECT s.id FROM sessions s JOIN events e ON e.id = s.event_id WHERE e.organiser_id = 1
            AND NOT EXISTS (SELECT 1 FROM order_items i JOIN tickets tk ON tk.order_item_id = i.id WHERE i.session_id = s.id AND tk.status = 'valid')
          ORDER BY s.id LIMIT 1`,
    );
    const none = await admin.post(messagesUrl(empty!.id), { subject: 'x', body: 'y' });
    expect(none.status).toBe(409);
    expect(none.body.code).toBe('conflict');
    expect((await promoterB.post(messagesUrl(ana.sessionId), { subject: 'x', body: 'y' })).status).toBe(404);
    expect((await promoterB.get(messagesUrl(ana.sessionId))).status).toBe(404);
    expect(await queryRows(t.ctx.db, sql`SELECT id FROM session_messages`)).toEqual(before);
  });
});

describe('the dashboard attendee page (D67)', () => {
  it('sends a message from the attendees page and lists it with its e-mails', async () => {
    const client = new DashboardClient(t.app);
    expect((await client.login('root@taquilla.test')).statusCode).toBe(303);
    const page = await client.get(`/admin/sessions/${ana.sessionId}/attendees`);
    expect(page.body).toContain('Message every ticket holder');
    expect(page.body).toContain(`action="/admin/sessions/${ana.sessionId}/messages"`);
    const res = await client.post(`/admin/sessions/${ana.sessionId}/messages`, { subject: 'Programme change', body: 'The second act is shorter.' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/admin/sessions/${ana.sessionId}/attendees?sent=2`);
    const after = await client.get(res.headers.location as string);
    expect(after.body).toContain('Message queued for 2 recipient(s).');
    expect(after.body).toContain('Programme change');
  });
});

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import type { TestApp } from '../helpers.js';
import type { api } from '../admin/admin-helpers.js';
import { XLSX_TYPE } from '../../src/lib/download.js';
import { wallClock } from '../../src/lib/xlsx.js';
import { readXlsx } from '../spreadsheet-helpers.js';
import { audienceApp, sell, type Sale } from './audience-fixtures.js';

let t: TestApp;
let admin: ReturnType<typeof api>;
let promoterB: ReturnType<typeof api>;
let adminToken: string;
let ana: Sale;
let bob: Sale;

beforeAll(async () => {
  ({ t, admin, adminToken, promoterB } = await audienceApp());
  ana = await sell(t, 'b', { name: 'Ana', surname: 'García Núñez', email: 'ana@example.com', phone: '+34 600 000 000' }, { seats: 2 });
  bob = await sell(t, 'd', { name: '=cmd', surname: 'Smith, Jr.', email: 'bob@example.org' }, { seats: 1, lang: 'en' });
}, 180_000);
afterAll(() => t.close());

const attendeesUrl = (sessionId: number, query = '') => `/sessions/${sessionId}/attendees${query}`;

describe('GET /api/admin/v1/sessions/{id}/attendees (D67)', () => {
  it('one row per valid ticket, with holder, e-mail, seat, rate, channel, order reference and check-in', async () => {
    const res = await admin.get(attendeesUrl(ana.sessionId));
    expect(res.status).toBe(200);
    const rows = res.body.data as Record<string, unknown>[];
    const [count] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM tickets t JOIN order_items i ON i.id = t.order_item_id WHERE i.session_id = ${ana.sessionId} AND t.status = 'valid'`,
    );
    expect(rows).toHaveLength(count!.n);
    expect(rows.filter((r) => r.order_reference === ana.reference)).toHaveLength(2);
    expect(rows.find((r) => r.order_reference === ana.reference)).toMatchObject({
      holder_name: 'Ana',
      holder_surname: 'García Núñez',
      email: 'ana@example.com',
      channel: expect.any(String),
      rate: expect.any(String),
      sector: expect.any(String),
      seat: expect.any(String),
      checked_in: false,
      checked_in_at: null,
    });
  });

  it('a voided ticket is not an attendee', async () => {
    const [ticket] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM tickets WHERE order_id = ${ana.orderId} ORDER BY id LIMIT 1`);
    await t.ctx.db.execute(sql`UPDATE tickets SET status = 'void' WHERE id = ${ticket!.id}`);
    try {
      const rows = (await admin.get(attendeesUrl(ana.sessionId))).body.data as { ticket_id: number; order_reference: string }[];
      expect(rows.filter((r) => r.order_reference === ana.reference).map((r) => r.ticket_id)).not.toContain(Number(ticket!.id));
      expect(rows.filter((r) => r.order_reference === ana.reference)).toHaveLength(1);
    } finally {
      await t.ctx.db.execute(sql`UPDATE tickets SET status = 'valid' WHERE id = ${ticket!.id}`);
    }
  });

  it('search finds by name, e-mail or reference; pages follow after_id', async () => {
    const byMail = (await admin.get(attendeesUrl(ana.sessionId, '?search=ANA@EXAMPLE'))).body.data as { email: string }[];
    expect(byMail.length).toBe(2);
    expect(byMail.every((r) => r.email === 'ana@example.com')).toBe(true);
    const byRef = (await admin.get(attendeesUrl(bob.sessionId, `?search=${bob.reference}`))).body.data;
    expect(byRef).toHaveLength(1);
    const none = (await admin.get(attendeesUrl(ana.sessionId, '?search=%25_nobody'))).body.data;
    expect(none).toEqual([]);
    const first = (await admin.get(attendeesUrl(ana.sessionId, '?limit=1'))).body.data as { ticket_id: number }[];
    const next = (await admin.get(attendeesUrl(ana.sessionId, `?limit=1&after_id=${first[0]!.ticket_id}`))).body.data as { ticket_id: number }[];
    expect(next[0]!.ticket_id).toBeGreaterThan(first[0]!.ticket_id);
  });

  it('CSV with Accept: text/csv: a byte-order mark, a header, one line per ticket, formulas defused, commas quoted', async () => {
    const res = await t.app.inject({
      url: `/api/admin/v1${attendeesUrl(bob.sessionId)}`,
      headers: { authorization: `Bearer ${adminToken}`, accept: 'text/csv' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="attendees_session-\d+_\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const lines = res.body.replace(/^\uFEFF/, '').trimEnd().split('\r\n');
    expect(lines[0]).toBe('ticket_code,holder_name,holder_surname,email,phone,sector,row,seat,rate,channel,order_reference,total_amount,purchased_at,checked_in,checked_in_at');
    const json = (await admin.get(attendeesUrl(bob.sessionId))).body.data as unknown[];
    expect(lines).toHaveLength(json.length + 1);
    const bobLine = lines.find((l) => l.includes(bob.reference))!;
    expect(bobLine).toContain("'=cmd");
    expect(bobLine).toContain('"Smith, Jr."');
    const semicolon = await t.app.inject({
      url: `/api/admin/v1${attendeesUrl(bob.sessionId, '?format=csv&separator=semicolon')}`,
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(semicolon.body.split('\r\n')[0]).toBe('\uFEFFticket_code;holder_name;holder_surname;email;phone;sector;row;seat;rate;channel;order_reference;total_amount;purchased_at;checked_in;checked_in_at');
    // The semicolon dialect writes amounts with a decimal comma (31,5), as the spreadsheets that want `;` read them.
    const bobJson = (json as { order_reference: string; total_amount: number }[]).find((r) => r.order_reference === bob.reference)!;
    const bobSemicolon = semicolon.body.split('\r\n').find((l) => l.includes(bob.reference))!.split(';');
    expect(bobSemicolon[11]).toBe(String(bobJson.total_amount).replace('.', ','));
  });

  it('XLSX with the XLSX Accept header or format=xlsx: the same rows, typed, times in Madrid wall-clock time, named after the session and its day', async () => {
    const json = (await admin.get(attendeesUrl(ana.sessionId))).body.data as Record<string, unknown>[];
    for (const res of [
      await t.app.inject({ url: `/api/admin/v1${attendeesUrl(ana.sessionId)}`, headers: { authorization: `Bearer ${adminToken}`, accept: XLSX_TYPE } }),
      await t.app.inject({ url: `/api/admin/v1${attendeesUrl(ana.sessionId, '?format=xlsx')}`, headers: { authorization: `Bearer ${adminToken}` } }),
    ]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe(XLSX_TYPE);
      expect(res.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="attendees_session-${ana.sessionId}_\\d{4}-\\d{2}-\\d{2}\\.xlsx"$`));
      const { header, rows } = await readXlsx(res.rawPayload);
      expect(header).toContain('purchased_at (Europe/Madrid)');
      expect(rows.map((r) => r.ticket_code!.value)).toEqual(json.map((r) => r.ticket_code));
      const first = json.find((r) => r.order_reference === ana.reference)!;
      const cell = rows.find((r) => r.ticket_code!.value === first.ticket_code)!;
      expect(cell.holder_surname!.value).toBe('García Núñez');
      expect(cell.total_amount!.value).toBe(first.total_amount);
      expect(cell.total_amount!.numFmt).toBe('#,##0.00 "€"');
      expect(cell.checked_in!.value).toBe(false);
      expect(cell['checked_in_at (Europe/Madrid)']!.value).toBe(null);
      expect(cell['purchased_at (Europe/Madrid)']!.value).toEqual(wallClock(new Date(first.purchased_at as string), 'Europe/Madrid'));
    }
  });

  it("another organiser's promoter gets 404, for JSON and CSV alike; an unknown session is 404", async () => {
    const res = await promoterB.get(attendeesUrl(ana.sessionId));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'not_found' });
    expect((await promoterB.get(attendeesUrl(ana.sessionId, '?format=csv'))).status).toBe(404);
    const xlsx = await promoterB.get(attendeesUrl(ana.sessionId, '?format=xlsx'));
    expect(xlsx.status).toBe(404);
    expect(xlsx.body).toMatchObject({ success: false, code: 'not_found' });
    expect((await admin.get(attendeesUrl(999_999))).body.code).toBe('not_found');
  });

  it('bad query values are 422 in the envelope', async () => {
    const res = await admin.get(attendeesUrl(ana.sessionId, '?limit=0'));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'validation_failed', errors: { limit: expect.any(Array) } });
  });
});

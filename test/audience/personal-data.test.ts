import { execFileSync } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/index.js';
import { queryRows, type Db } from '../../src/db/client.js';
import { PERSONAL_DATA_COLUMNS } from '../../src/modules/audience/personal-data.repo.js';
import { eraseDueOrders } from '../../src/modules/audience/personal-data.service.js';
import { bearer, buildTestApp, DEMO, isPostgres, tokenFor, type TestApp } from '../helpers.js';
import { account, api, apiAs } from '../admin/admin-helpers.js';
import { buyer, createPendingOrder } from '../checkout/fixtures.js';
import { demoSessions, device, makeDevice, makeList, sellTickets, startSessionIn } from '../checkin/checkin-helpers.js';
import { forgetTokens, sell } from './audience-fixtures.js';

// D68 on a real database: one buyer erased everywhere, the rest of the sale kept.

let t: TestApp;
let admin: ReturnType<typeof api>;
let promoter: ReturnType<typeof api>;
let promoterToken: string;
const putAs = (token: string, url: string, payload: unknown) =>
  t.app.inject({ method: 'PUT', url: `/api/admin/v1${url}`, headers: bearer(token), payload: payload as object });

beforeAll(async () => {
  t = await buildTestApp();
  forgetTokens();
  admin = await apiAs(t, 'root@taquilla.test');
  promoterToken = (await account(t.ctx, 'promoter@taquilla.test', 1)).token;
  promoter = api(t.app, promoterToken);
}, 180_000);
afterAll(() => t.close());

/** Every table of the public schema as text, row by row: what a dump of the database would show. */
async function everyRowAsText(db: Db): Promise<string> {
  const tables = await queryRows<{ table_name: string }>(
    db,
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  let text = '';
  for (const { table_name } of tables) {
    const rows = await queryRows<{ row: string }>(db, sql`SELECT t::text AS row FROM ${sql.identifier(table_name)} t`);
    text += rows.map((r) => `${table_name}: ${r.row}\n`).join('');
  }
  return text;
}

/** The sales report rows of a channel without the buyer's columns: the accounting erasure must keep. */
async function reportAmounts(slug: string, key: string) {
  // Its own client_id: a token of the group that sells would revoke the seller's (D38).
  const token = await tokenFor(t.app, slug, key, 'report-reader');
  const res = await t.app.inject({ url: `/api/sales-channel/v1/${slug}/es/reports/sales`, headers: bearer(token) });
  const body = res.json();
  return { summary: body.data.summary, rows: body.data.data.map(({ customer_name: _n, customer_email: _e, ...rest }: Record<string, unknown>) => rest) };
}

describe('erasing a buyer (D68)', () => {
  it('overwrites the address and names everywhere; amounts, seats and tickets stay; the tickets still scan', async () => {
    const sessions = await demoSessions(t.ctx);
    await startSessionIn(t, sessions[0]!.id, 3_600_000);
    const listId = (await makeList(t, { name: 'Door', session_ids: [sessions[0]!.id] })).id;
    const gate = device(t, (await makeDevice(t, 'Gate', [listId])).token);
    // Model D (no e-mail), model B (the tickets e-mail queued), a card checkout of model A (a payment row),
    // and a box-office resend (an audit entry naming the recipient). The address in another case too.
    const { tickets } = await sellTickets(t, { sessionId: sessions[0]!.id });
    const b = await sell(t, 'b', { ...buyer, email: 'Ana@Example.com' });
    const a = await createPendingOrder(t.ctx, { channel: DEMO.a.slug });
    expect((await t.app.inject({ method: 'POST', url: `/api/portal/${DEMO.a.slug}/es/checkout`, payload: { order_token: a.token, ...buyer } })).statusCode).toBe(200);
    expect((await admin.post(`/orders/${b.reference}/resend-tickets`)).status).toBeLessThan(300);
    // Someone else, who must keep everything.
    const other = await sell(t, 'b', { name: 'Luis', surname: 'Pérez', email: 'luis@example.org' });

    const before = await everyRowAsText(t.ctx.db);
    expect(before.toLowerCase()).toContain('ana@example.com');
    const report = await reportAmounts(DEMO.b.slug, DEMO.b.key);

    const res = await admin.post('/personal-data/erase', { email: 'ana@example.com' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ customers: 2, orders: 3, payments: 1 });
    expect(res.body.data.emails).toBeGreaterThanOrEqual(1);
    expect(res.body.data.log_entries).toBeGreaterThanOrEqual(1);

    const after = await everyRowAsText(t.ctx.db);
    expect(after.toLowerCase()).not.toContain('ana@example.com');
    expect(after).not.toContain('García Núñez');
    expect(after).not.toContain('600 000 000');
    expect(after).toContain('luis@example.org');
    if (isPostgres && t.db.url) {
      const dump = execFileSync('pg_dump', ['--data-only', t.db.url], { maxBuffer: 256 * 1024 * 1024 }).toString();
      expect(dump).toContain('luis@example.org');
      expect(dump.toLowerCase()).not.toContain('ana@example.com');
      expect(dump).not.toContain('García Núñez');
    }
    expect(await reportAmounts(DEMO.b.slug, DEMO.b.key)).toEqual(report);
    const [kept] = await queryRows<{ email: string }>(t.ctx.db, sql`SELECT c.email FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ${other.orderId}`);
    expect(kept!.email).toBe('luis@example.org');

    const scan = await gate.scan(listId, { secret: tickets[0]!.secret });
    expect(scan.json()).toMatchObject({ result: 'valid', ticket: { buyer_name: 'erased' } });

    // The audit log says that an erasure happened, with its counts, not whose.
    const audit = (await admin.get('/audit-log')).body.data as { action: string; details: Record<string, unknown> }[];
    const entry = audit.find((e) => e.action === 'personal_data.erase')!;
    expect(entry.details).toMatchObject({ customers: 2, orders: 3 });
    expect(JSON.stringify(entry).toLowerCase()).not.toContain('ana@');

    // Erasing again finds nothing; the stand-in address is not an address of anyone.
    expect((await admin.post('/personal-data/erase', { email: 'ana@example.com' })).body.data).toMatchObject({ customers: 0, orders: 0, payments: 0 });
  });

  it('export: every order, payment and e-mail of one address, as JSON', async () => {
    await sell(t, 'b', { name: 'Eva', surname: 'Łukasz', email: 'eva@example.net', phone: '+48 500 000 000' }, { seats: 2 });
    const res = await admin.post('/personal-data/export', { email: 'EVA@example.net' });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.email).toBe('EVA@example.net');
    expect(data.orders).toHaveLength(1);
    expect(data.orders[0]).toMatchObject({ name: 'Eva', surname: 'Łukasz', email: 'eva@example.net', phone: '+48 500 000 000', status: 'completed' });
    expect(data.orders[0].items).toHaveLength(2);
    expect(data.emails.length).toBeGreaterThanOrEqual(1);
    // In the API's terms (D11, D12), not the table's: amounts as the order read shows them, instants in ISO 8601 with an offset.
    const order = (await admin.get(`/orders/${data.orders[0].reference}`)).body.data;
    expect(data.orders[0].total_amount).toBe(order.total_amount);
    expect(data.orders[0].items.map((i: { total_amount: number }) => i.total_amount)).toEqual(order.items.map((i: { total_amount: number }) => i.total_amount));
    const isoWithOffset = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
    for (const at of [data.exported_at, data.orders[0].created_at, data.orders[0].completed_at, data.orders[0].items[0].session_start, data.emails[0].created_at]) {
      expect(at).toMatch(isoWithOffset);
    }
  });

  it('admins only; a bad address is 422; unknown fields are refused', async () => {
    expect((await promoter.post('/personal-data/erase', { email: 'eva@example.net' })).body).toMatchObject({ status: 403, code: 'forbidden' });
    expect((await promoter.post('/personal-data/export', { email: 'eva@example.net' })).status).toBe(403);
    const bad = await admin.post('/personal-data/erase', { email: 'not an address' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty('email');
    const extra = await admin.post('/personal-data/erase', { email: 'eva@example.net', everything: true });
    expect(extra.status).toBe(422);
  });
});

describe('the command line (D68)', () => {
  it('personal-data:export prints the JSON, personal-data:erase erases and prints the counts', async () => {
    await sell(t, 'b', { name: 'Iker', surname: 'Etxeberria', email: 'iker@example.com' });
    const run = async (argv: string[]) => {
      const out: string[] = [];
      const log = vi.spyOn(console, 'log').mockImplementation((...a) => void out.push(a.join(' ')));
      try {
        const code = await runCli(argv, async () => ({ ctx: t.ctx, appliedNow: [], close: async () => {} }));
        return { code, out: out.join('\n') };
      } finally {
        log.mockRestore();
      }
    };
    const exported = await run(['personal-data:export', '--email=iker@example.com']);
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.out).orders[0]).toMatchObject({ name: 'Iker', surname: 'Etxeberria' });
    const erased = await run(['personal-data:erase', '--email=iker@example.com']);
    expect(erased.code).toBe(0);
    expect(erased.out).toMatch(/^erased: 1 buyer records, 1 orders/);
    expect((await everyRowAsText(t.ctx.db)).toLowerCase()).not.toContain('iker@example.com');
  });
});

describe('automatic erasure N days after each session (D68)', () => {
  it('erases the orders of sessions past the organiser\'s days, and nothing sooner or of other organisers', async () => {
    const sessions = await demoSessions(t.ctx);
    const s = sessions[1]!;
    const sold = await sell(t, 'b', { name: 'Olga', surname: 'Ivanova', email: 'olga@example.com' }, { sessionIndex: 1 });
    const settings = await admin.get(`/organisers/${s.organiser_id}/privacy`);
    expect(settings.body.data).toEqual({ organiser_id: s.organiser_id, erase_after_days: null });
    // The organiser's own promoter sets it (an admin may too).
    expect((await putAs(promoterToken, `/organisers/${s.organiser_id}/privacy`, { erase_after_days: 30 })).statusCode).toBe(200);
    expect((await admin.get(`/organisers/${s.organiser_id}/privacy`)).body.data.erase_after_days).toBe(30);

    const [session] = await queryRows<{ ends: string | Date }>(t.ctx.db, sql`SELECT COALESCE(end_datetime, start_datetime) AS ends FROM sessions WHERE id = ${s.id}`);
    const ends = new Date(session!.ends).getTime();
    const email = async () =>
      (await queryRows<{ email: string }>(t.ctx.db, sql`SELECT c.email FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ${sold.orderId}`))[0]!.email;

    t.clock.set(new Date(ends + 29 * 86_400_000));
    await eraseDueOrders(t.ctx);
    expect(await email()).toBe('olga@example.com');
    t.clock.set(new Date(ends + 31 * 86_400_000));
    expect(await eraseDueOrders(t.ctx)).toBeGreaterThanOrEqual(1);
    expect(await email()).toMatch(/@erased\.invalid$/);
    expect((await everyRowAsText(t.ctx.db)).toLowerCase()).not.toContain('olga@example.com');
    // A second pass finds nothing more to do.
    expect(await eraseDueOrders(t.ctx)).toBe(0);
  });

  it('days out of range are 422; an unknown or foreign organiser is 404; null turns it off', async () => {
    const zero = await putAs(promoterToken, '/organisers/1/privacy', { erase_after_days: 0 });
    expect(zero.statusCode).toBe(422);
    expect(zero.json().errors).toHaveProperty('erase_after_days');
    expect((await putAs(promoterToken, '/organisers/1/privacy', { erase_after_days: '30' })).statusCode).toBe(422);
    const org = (await admin.post('/organisers', { name: 'Otra' })).body.data.id as number;
    expect((await putAs(promoterToken, `/organisers/${org}/privacy`, { erase_after_days: 10 })).json()).toMatchObject({ status: 404, code: 'not_found' });
    expect((await admin.get('/organisers/999999/privacy')).body.code).toBe('not_found');
    expect((await putAs(promoterToken, '/organisers/1/privacy', { erase_after_days: null })).json().data).toEqual({ organiser_id: 1, erase_after_days: null });
  });
});

describe('every place personal data is kept has an erasure rule', () => {
  it('each column named like an e-mail, a phone or a person is listed in PERSONAL_DATA_COLUMNS (docs/privacy.md)', async () => {
    const columns = await queryRows<{ table_name: string; column_name: string }>(
      t.ctx.db,
      sql`SELECT table_name, column_name FROM information_schema.columns
          WHERE table_schema = 'public'
            AND column_name ~ '(e_?mail|recipient|phone|surname|holder|buyer|customer_name|first_name|last_name)'
            AND data_type IN ('text', 'character varying', 'json', 'jsonb')
          ORDER BY 1, 2`,
    );
    const unlisted = columns.map((c) => `${c.table_name}.${c.column_name}`).filter((c) => !(c in PERSONAL_DATA_COLUMNS));
    expect(unlisted).toEqual([]);
  });
});

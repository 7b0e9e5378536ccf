import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { account } from '../admin/admin-helpers.js';
import { buildTestApp, DEMO, serverTokenFor, type TestApp } from '../helpers.js';
import { createHeldOrder } from '../portal/fixtures.js';
import type { JsonSchema } from './fuzz-values.js';

// The walk over every operation of the served OpenAPI document that the schema-driven tests share
// (fuzz.test.ts, strict-bodies.test.ts): the operations, valid credentials for each, and the real
// ids of the demo data that a schema cannot describe, so that requests reach the handlers.

export interface Operation {
  method: string;
  path: string;
  parameters: { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema: JsonSchema }[];
  body: JsonSchema | null;
}

export interface OperationsFixture {
  t: TestApp;
  /** The served OpenAPI document. */
  doc: Record<string, unknown>;
  /** Every operation of the document, B2B and portal first so that admin changes come last. */
  operations(): Operation[];
  /** Baseline values of one operation; cart operations get a fresh pending cart of their own. */
  baselineFor(op: Operation): Promise<Record<string, unknown>>;
  /** The credentials that reach the operation's handler. */
  headersFor(op: Operation): Record<string, string>;
}

export async function openOperationsFixture(): Promise<OperationsFixture> {
  const t = await buildTestApp({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '1000000' } });
  /** demo-d's server token: it may call every B2B operation of model D (D40), so every handler is reached. */
  const serverToken = await serverTokenFor(t.app, DEMO.d.slug);
  const adminToken = (await account(t.ctx, 'fuzz-admin@taquilla.test')).token;
  const doc = (await t.app.inject({ url: '/api/openapi.json' })).json() as Record<string, unknown>;

  const one = async <T>(query: ReturnType<typeof sql>) => (await queryRows<T>(t.ctx.db, query))[0]!;
  const session = await one<{ id: number; event_id: number }>(sql`SELECT id, event_id FROM sessions ORDER BY start_datetime, id LIMIT 1`);
  const channelB = await one<{ id: number; organiser_id: number }>(sql`SELECT id, organiser_id FROM sales_channels WHERE slug = 'demo-b'`);
  const completed = await createHeldOrder(t, DEMO.d.slug);
  const confirm = await t.app.inject({
    method: 'POST',
    url: `/api/sales-channel/v1/demo-d/es/orders/${completed.token}/confirm`,
    headers: { authorization: `Bearer ${serverToken}` },
    payload: { amount: completed.total / 100, name: 'Ana', surname: 'Pérez', email: 'ana@example.com' },
  });
  expect(confirm.statusCode).toBe(200);
  /** Values of fields a schema cannot describe: real ids, codes and the like of the demo data. */
  const known: Record<string, unknown> = {
    salesChannelSlug: DEMO.d.slug,
    lang: 'es',
    eventId: session.event_id,
    event_id: session.event_id,
    sessionId: session.id,
    session_id: session.id,
    session_seat_id: (await one<{ id: number }>(sql`SELECT id FROM session_seats WHERE session_id = ${session.id} AND status = 'available' ORDER BY id DESC LIMIT 1`)).id,
    rate_id: (await one<{ id: number }>(sql`SELECT id FROM rates WHERE session_id = ${session.id} ORDER BY id LIMIT 1`)).id,
    rateId: (await one<{ id: number }>(sql`SELECT id FROM rates WHERE session_id = ${session.id} ORDER BY id LIMIT 1`)).id,
    sector_id: (await one<{ id: number }>(sql`SELECT id FROM sectors WHERE numbered = false ORDER BY id LIMIT 1`)).id,
    feeId: (await one<{ id: number }>(sql`SELECT id FROM fees ORDER BY id LIMIT 1`)).id,
    voucherId: (await one<{ id: number }>(sql`SELECT id FROM vouchers ORDER BY id LIMIT 1`)).id,
    voucherCode: 'DEMO10',
    code: 'DEMO10',
    channelId: channelB.id,
    channel_id: channelB.id,
    keyId: (await one<{ id: number }>(sql`SELECT id FROM widget_keys WHERE channel_id = ${channelB.id} ORDER BY id LIMIT 1`)).id,
    organiser_id: channelB.organiser_id,
    venue_id: (await one<{ id: number }>(sql`SELECT id FROM venues ORDER BY id LIMIT 1`)).id,
    reference: (await one<{ reference: string }>(sql`SELECT reference FROM orders WHERE id = ${completed.id}`)).reference,
    sales_channel_slug: DEMO.d.slug,
    widget_key: DEMO.d.key,
    slug: 'fuzz-channel',
    email: 'fuzz@example.com',
    password: 'a long enough password',
    reason: 'customer asked',
    name: 'Fuzz',
    surname: 'Tester',
    file: 'ticket.pdf',
  };

  return {
    t,
    doc,
    operations() {
      const out: Operation[] = [];
      for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
        for (const [method, op] of Object.entries(methods)) {
          const content = (op.requestBody as { content?: Record<string, { schema: JsonSchema }> } | undefined)?.content;
          out.push({
            method: method.toUpperCase(),
            path,
            parameters: (op.parameters as Operation['parameters'] | undefined) ?? [],
            body: content?.['application/json']?.schema ?? null,
          });
        }
      }
      return out.sort((a, b) => Number(a.path.startsWith('/api/admin')) - Number(b.path.startsWith('/api/admin')));
    },
    async baselineFor(op) {
      const values = { ...known };
      const portal = op.path.startsWith('/api/portal/');
      if (portal) values.salesChannelSlug = DEMO.a.slug;
      if (op.path.includes('{orderToken}') || op.path.includes('/orders/{')) {
        const held = await createHeldOrder(t, portal ? DEMO.a.slug : DEMO.d.slug);
        const [item] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM order_items WHERE order_id = ${held.id} ORDER BY id LIMIT 1`);
        Object.assign(values, { orderToken: held.token, order_token: held.token, itemId: item!.id, item_ids: [item!.id], amount: held.total / 100 });
      }
      return values;
    },
    headersFor(op): Record<string, string> {
      if (op.path.startsWith('/api/admin/')) return { authorization: `Bearer ${adminToken}` };
      if (op.path.startsWith('/api/sales-channel/v1/{')) return { authorization: `Bearer ${serverToken}` };
      return {};
    },
  };
}

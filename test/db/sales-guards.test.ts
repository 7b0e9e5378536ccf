import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp, DEMO, tokenFor, type TestApp } from '../helpers.js';
import { createOrder, demoSession, type DemoSession } from '../orders/cart-helpers.js';

// Migration 0026 replaced the foreign keys from the cart to shared catalogue rows (an item's event,
// session, sector and rate; an order's channel) by delete guards, so that a flash sale does not lock
// the same rows for every buyer. These tests hold the guards to what the foreign keys did: a row
// that a sale references cannot be deleted; an unreferenced one can.

let t: TestApp;
let s0: DemoSession;

beforeAll(async () => {
  t = await buildTestApp();
  s0 = await demoSession(t, 0);
  const token = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key);
  await createOrder(t.app, token, DEMO.d.slug, { session_seat_id: s0.seats[0]!.id, rate_id: s0.rates.general });
}, 180_000);
afterAll(() => t.close());

/** Runs a statement in its own transaction and returns the SQLSTATE it failed with (null: it worked, and is rolled back). */
async function sqlState(statement: ReturnType<typeof sql>): Promise<string | null> {
  const rollback = new Error('rollback');
  try {
    await t.ctx.db.transaction(async (tx) => {
      await tx.execute(statement);
      throw rollback;
    });
  } catch (err) {
    if (err === rollback) return null;
    const e = err as { code?: string; cause?: { code?: string } };
    return e.code ?? e.cause?.code ?? 'unknown';
  }
  return null;
}

describe('delete guards of catalogue rows that sales reference', () => {
  it('a rate with items cannot be deleted (23503); a rate without items can', async () => {
    expect(await sqlState(sql`DELETE FROM rates WHERE id = ${s0.rates.general}`)).toBe('23503');
    expect(await sqlState(sql`DELETE FROM rates WHERE id = ${s0.rates.reduced}`)).toBeNull();
  });

  it('a channel with orders cannot be deleted; a channel without orders can', async () => {
    const [withOrders] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sales_channels WHERE slug = ${DEMO.d.slug}`);
    expect(await sqlState(sql`DELETE FROM sales_channels WHERE id = ${withOrders!.id}`)).toBe('23503');
    const [without] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sales_channels WHERE slug = ${DEMO.a.slug}`);
    expect(await sqlState(sql`DELETE FROM sales_channels WHERE id = ${without!.id}`)).toBeNull();
  });

  it('a session, its event and its sector stay guarded through the sold inventory rows', async () => {
    expect(await sqlState(sql`DELETE FROM sessions WHERE id = ${s0.sessionId}`)).toBe('23503');
    expect(await sqlState(sql`DELETE FROM events WHERE id = ${s0.eventId}`)).toBe('23503');
    const [sector] = await queryRows<{ sector_id: number }>(t.ctx.db, sql`SELECT sector_id FROM session_seats WHERE id = ${s0.seats[0]!.id}`);
    expect(await sqlState(sql`DELETE FROM sectors WHERE id = ${sector!.sector_id}`)).toBe('23503');
  });

  it('the cart keeps no foreign key to shared catalogue rows (they are what every buyer would lock)', async () => {
    const fks = await queryRows<{ name: string }>(
      t.ctx.db,
      sql`SELECT conname AS name FROM pg_constraint
          WHERE contype = 'f' AND conrelid IN ('order_items'::regclass, 'orders'::regclass)
            AND confrelid IN ('events'::regclass, 'sessions'::regclass, 'sectors'::regclass, 'rates'::regclass, 'sales_channels'::regclass)`,
    );
    expect(fks).toEqual([]);
  });
});

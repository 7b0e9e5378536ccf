import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { importCatalogue, type ImportSummary } from '../../src/modules/catalogue/import.service.js';
import type { CatalogueDocument } from '../../src/modules/catalogue/import.schemas.js';
import { buildTestApp, isPostgres, type TestApp } from '../helpers.js';

// Issue 29: a catalogue import run twice updates what it created (by the document's own keys and
// its import_key) instead of adding a second copy, and says what it changed.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
}, 180_000);
afterAll(() => t.close());

const none = { organisers: 0, venues: 0, events: 0, sessions: 0, rates: 0, vouchers: 0, channels: 0 };

function document(scope: string, name: string): CatalogueDocument {
  const day = (n: number) => new Date(t.clock.now().getTime() + n * 86_400_000).toISOString();
  return {
    import_key: scope,
    organisers: [{ key: 'o', name: `${name} Org` }],
    venues: [
      {
        key: 'hall',
        organiser: 'o',
        name: `${name} Hall`,
        sectors: [
          { key: 'stalls', name: 'Stalls', numbered: true, rows: [{ row: 'A', seats: 4, x: 0, y: 0 }] },
          { key: 'floor', name: 'Floor', numbered: false, capacity: 5 },
        ],
      },
    ],
    events: [
      {
        key: 'show',
        organiser: 'o',
        venue: 'hall',
        names: { es: `${name} Show`, en: `${name} Show EN` },
        fees: [{ name: 'Gestión', kind: 'fixed', amount: 1 }],
        sessions: [
          { key: 's1', start_datetime: day(10), rates: [{ key: 'general', name: 'General', price: 20 }, { key: 'floor', name: 'Pista', price: 12, sector: 'floor' }] },
          { key: 's2', start_datetime: day(11), rates: [{ key: 'general', name: 'General', price: 20 }] },
        ],
      },
    ],
    vouchers: [{ organiser: 'o', code: `${scope.replace(/[^A-Za-z0-9]/g, '')}10`, kind: 'percent', value: 10, session: 's1' }],
    channels: [{ organiser: 'o', slug: `${scope}-web`, name: 'Web', integration_mode: 'widget_external_payment', events: 'all' }],
  };
}

const countOf = async (query: ReturnType<typeof sql>) => Number((await queryRows<{ n: number }>(t.ctx.db, query))[0]!.n);
const organisersNamed = (name: string) => countOf(sql`SELECT count(*)::int AS n FROM organisers WHERE name = ${name}`);
async function sessionsOf(name: string) {
  return queryRows<{ id: number; start: Date }>(
    t.ctx.db,
    sql`SELECT s.id, s.start_datetime AS start FROM sessions s JOIN events e ON e.id = s.event_id JOIN venues v ON v.id = e.venue_id
        WHERE v.name = ${`${name} Hall`} ORDER BY s.start_datetime`,
  );
}

describe('catalogue import run twice (issue 29)', () => {
  it('the same document twice: no second copy, every record unchanged', async () => {
    const doc = document('twice', 'Twice');
    const first = await importCatalogue(t.ctx, doc);
    expect(first.changes).toEqual({ created: { organisers: 1, venues: 1, events: 1, sessions: 2, rates: 3, vouchers: 1, channels: 1 }, updated: none, unchanged: none });
    const second = await importCatalogue(t.ctx, doc);
    // the existing summary fields keep their meaning: the document's records
    expect(second).toMatchObject({ organisers: 1, venues: 1, seats: 4, events: 1, sessions: 2, rates: 3, vouchers: 1, channels: 1, sessions_moved: 0 });
    expect(second.changes).toEqual({ created: none, updated: none, unchanged: { organisers: 1, venues: 1, events: 1, sessions: 2, rates: 3, vouchers: 1, channels: 1 } });
    expect(await organisersNamed('Twice Org')).toBe(1);
    expect(await sessionsOf('Twice')).toHaveLength(2);
    const sessionIds = (await sessionsOf('Twice')).map((s) => s.id);
    // each session's inventory once: 4 seats and 5 places
    expect(await countOf(sql`SELECT count(*)::int AS n FROM session_seats WHERE session_id = ${sessionIds[0]!}`)).toBe(9);
    expect(await countOf(sql`SELECT count(*)::int AS n FROM venue_layouts l JOIN venues v ON v.id = l.venue_id WHERE v.name = 'Twice Hall'`)).toBe(1);
    expect(await countOf(sql`SELECT count(*)::int AS n FROM fees f JOIN events e ON e.id = f.event_id JOIN venues v ON v.id = e.venue_id WHERE v.name = 'Twice Hall'`)).toBe(1);
  });

  it('without an import_key every import creates new records, as before', async () => {
    const { import_key: _none, ...doc } = document('nokey', 'Nokey');
    await importCatalogue(t.ctx, { ...doc, channels: [] });
    const again = await importCatalogue(t.ctx, { ...doc, channels: [] });
    expect(again.changes.created).toMatchObject({ organisers: 1, events: 1, sessions: 2 });
    expect(await organisersNamed('Nokey Org')).toBe(2);
  });

  it('a changed document: renamed event, new price, one new session, one left out; the one left out stays, with its sold seat', async () => {
    const doc = document('changed', 'Changed');
    await importCatalogue(t.ctx, doc);
    const [s1, s2] = await sessionsOf('Changed');
    // a sold seat in s2, the session the new document leaves out
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'sold' WHERE id = (SELECT min(id) FROM session_seats WHERE session_id = ${s2!.id} AND seat_id IS NOT NULL)`);
    const event = doc.events[0]!;
    const later = new Date(t.clock.now().getTime() + 20 * 86_400_000).toISOString();
    const changed: CatalogueDocument = {
      ...doc,
      events: [
        {
          ...event,
          names: { es: 'Changed Show, renamed', en: 'Changed Show EN' },
          sessions: [
            { ...event.sessions[0]!, rates: [{ key: 'general', name: 'General', price: 25 }, event.sessions[0]!.rates[1]!] },
            { key: 's3', start_datetime: later, rates: [{ key: 'general', name: 'General', price: 30 }] },
          ],
        },
      ],
    };
    const summary: ImportSummary = await importCatalogue(t.ctx, changed);
    expect(summary.changes.created).toEqual({ ...none, sessions: 1, rates: 1 });
    expect(summary.changes.updated).toEqual({ ...none, events: 1, rates: 1 });
    expect(summary.changes.unchanged).toEqual({ organisers: 1, venues: 1, events: 0, sessions: 1, rates: 1, vouchers: 1, channels: 1 });
    const after = await sessionsOf('Changed');
    expect(after.map((s) => s.id).slice(0, 2)).toEqual([s1!.id, s2!.id]);
    expect(after).toHaveLength(3);
    expect(await countOf(sql`SELECT count(*)::int AS n FROM session_seats WHERE session_id = ${s2!.id} AND status = 'sold'`)).toBe(1);
    const names = await queryRows<{ name: string }>(t.ctx.db, sql`SELECT tr.name FROM event_translations tr JOIN sessions s ON s.event_id = tr.event_id WHERE s.id = ${s1!.id} AND tr.lang = 'es'`);
    expect(names).toEqual([{ name: 'Changed Show, renamed' }]);
    const prices = await queryRows<{ name: string; price: number }>(t.ctx.db, sql`SELECT name, price FROM rates WHERE session_id = ${s1!.id} ORDER BY sort_order`);
    expect(prices).toEqual([
      { name: 'General', price: 2500 },
      { name: 'Pista', price: 1200 },
    ]);
    // the channel sells "all" events of the document: still one event, one link
    expect(await countOf(sql`SELECT count(*)::int AS n FROM channel_events ce JOIN sales_channels c ON c.id = ce.channel_id WHERE c.slug = 'changed-web'`)).toBe(1);
  });

  it("a plan that drops a sold seat is refused (409 layout_seat_in_use) and nothing of the document lands; a plan that keeps it moves the sessions", async () => {
    const doc = document('plan', 'Plan');
    await importCatalogue(t.ctx, doc);
    const [s1] = await sessionsOf('Plan');
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'sold' WHERE id = (
      SELECT ss.id FROM session_seats ss JOIN seats st ON st.id = ss.seat_id WHERE ss.session_id = ${s1!.id} AND st.number = '4')`);
    const venue = doc.venues[0]!;
    const smaller = { ...doc, organisers: [{ key: 'o', name: 'Plan Org renamed' }], venues: [{ ...venue, sectors: [{ ...venue.sectors[0]!, rows: [{ row: 'A', seats: 3, x: 0, y: 0 }] }, venue.sectors[1]!] }] };
    await expect(importCatalogue(t.ctx, smaller)).rejects.toMatchObject({ code: 'layout_seat_in_use' });
    expect(await organisersNamed('Plan Org')).toBe(1);
    const larger = { ...doc, venues: [{ ...venue, sectors: [{ ...venue.sectors[0]!, rows: [{ row: 'A', seats: 6, x: 0, y: 0 }] }, venue.sectors[1]!] }] };
    const summary = await importCatalogue(t.ctx, larger);
    expect(summary.changes.updated.venues).toBe(1);
    expect(summary.sessions_moved).toBe(2);
    expect(await countOf(sql`SELECT count(*)::int AS n FROM session_seats WHERE session_id = ${s1!.id} AND seat_id IS NOT NULL`)).toBe(6);
    expect(await countOf(sql`SELECT count(*)::int AS n FROM session_seats WHERE session_id = ${s1!.id} AND status = 'sold'`)).toBe(1);
  });

  it('an imported channel keeps its mode: a new one is refused by path', async () => {
    const doc = document('mode', 'Mode');
    await importCatalogue(t.ctx, doc);
    const refused = importCatalogue(t.ctx, { ...doc, channels: [{ ...doc.channels![0]!, integration_mode: 'portal_only' }] });
    await expect(refused).rejects.toMatchObject({ code: 'validation_failed', fields: { 'channels.mode-web.integration_mode': [expect.stringContaining('keeps its mode')] } });
  });

  it(`two parallel imports of one new document make one copy (${isPostgres ? 'PostgreSQL' : 'PGlite, serialised'})`, async () => {
    const doc = document('parallel', 'Parallel');
    const results = await Promise.all([importCatalogue(t.ctx, doc), importCatalogue(t.ctx, doc)]);
    expect(await organisersNamed('Parallel Org')).toBe(1);
    expect(await sessionsOf('Parallel')).toHaveLength(2);
    expect(await countOf(sql`SELECT count(*)::int AS n FROM sales_channels WHERE slug = 'parallel-web'`)).toBe(1);
    const created = results.map((r) => r.changes.created.organisers).sort();
    expect(created).toEqual([0, 1]);
    expect(results.map((r) => r.changes.unchanged.sessions).sort()).toEqual([0, 2]);
  });
});

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp, DEMO, type TestApp } from '../helpers.js';
import { firstStorefrontSession } from './fixtures.js';

// D72 "findable and keepable" on the storefront pages (event pages carry schema.org Event JSON-LD,
// Open Graph tags, a description and a favicon; "find my order" as a page) and D71 (every price a
// buyer is shown includes the mandatory fees).

let t: TestApp;
let eventId: number;
let sessionId: number;
beforeAll(async () => {
  t = await buildTestApp();
  ({ eventId, sessionId } = await firstStorefrontSession(t));
  // A mandatory fee of 10 % on the event: every price shown must carry it (D71).
  await t.ctx.db.execute(sql`INSERT INTO fees (event_id, name, kind, amount) VALUES (${eventId}, 'Gestión', 'percent', 1000)`);
}, 120_000);
afterAll(() => t.close());

const page = async (path: string) => {
  const res = await t.app.inject({ url: `/${DEMO.a.slug}/en${path}` });
  expect(res.statusCode, path).toBe(200);
  return res.body;
};
const jsonLd = (html: string) => [...html.matchAll(/<script type="application\/ld\+json">([^<]*)<\/script>/g)].map((m) => JSON.parse(m[1]!));
const metaContent = (html: string, attr: string, name: string) => html.match(new RegExp(`<meta ${attr}="${name.replace('+', '\\+')}" content="([^"]*)"`))?.[1];
/** The lowest price a buyer pays for a ticket of the session: its rates plus their fees. */
const allInFrom = async (id: number) => {
  const [row] = await queryRows<{ min: number }>(
    t.ctx.db,
    sql`SELECT min(r.price + ticket_fee(r.price, s.event_id, s.id))::int AS min FROM rates r JOIN sessions s ON s.id = r.session_id WHERE s.id = ${id}`,
  );
  return row!.min;
};

describe('event pages for search engines and link previews (D72)', () => {
  it('the event page: one schema.org Event per session on sale, with its all-in price from', async () => {
    const html = await page(`/events/${eventId}`);
    const [events] = jsonLd(html);
    expect(Array.isArray(events)).toBe(true);
    type LdEvent = { '@context': string; '@type': string; url: string; startDate: string; eventStatus: string; location: { '@type': string }; offers: unknown };
    const ours = (events as LdEvent[]).find((e) => e.url.endsWith(`/sessions/${sessionId}`))!;
    expect(ours['@context']).toBe('https://schema.org');
    expect(ours['@type']).toBe('Event');
    const [session] = await queryRows<{ start_datetime: string }>(t.ctx.db, sql`SELECT start_datetime FROM sessions WHERE id = ${sessionId}`);
    expect(new Date(ours.startDate).getTime()).toBe(new Date(session!.start_datetime).getTime());
    expect(ours.url).toBe(`http://taquilla.test/${DEMO.a.slug}/en/events/${eventId}/sessions/${sessionId}`);
    expect(ours.location['@type']).toBe('Place');
    expect(ours.offers).toMatchObject({ '@type': 'Offer', priceCurrency: t.ctx.config.currency, price: ((await allInFrom(sessionId)) / 100).toFixed(2) });
    expect(ours.eventStatus).toBe('https://schema.org/EventScheduled');
  });

  it('Open Graph, description, canonical address and favicon; the favicon is served', async () => {
    const html = await page(`/events/${eventId}`);
    expect(metaContent(html, 'property', 'og:url')).toBe(`http://taquilla.test/${DEMO.a.slug}/en/events/${eventId}`);
    expect(metaContent(html, 'property', 'og:title')).toBeTruthy();
    expect(metaContent(html, 'property', 'og:type')).toBe('website');
    expect(metaContent(html, 'property', 'og:locale')).toBe('en_GB');
    expect(metaContent(html, 'name', 'description')!.length).toBeGreaterThan(10);
    expect(html).toContain(`<link rel="canonical" href="http://taquilla.test/${DEMO.a.slug}/en/events/${eventId}"`);
    expect(html).toContain('<link rel="icon" href="/portal-assets/favicon.svg" type="image/svg+xml"');
    const icon = await t.app.inject({ url: '/portal-assets/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    // A page that names no icon (the dashboard, the widget's example pages): the browser's /favicon.ico is that icon, not a 404.
    const ico = await t.app.inject({ url: '/favicon.ico' });
    expect(ico.statusCode).toBe(200);
    expect(ico.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(ico.body).toBe(icon.body);
    // The session page: its own Event, and the time in its title.
    const session = await page(`/events/${eventId}/sessions/${sessionId}`);
    expect(jsonLd(session)[0]).toMatchObject({ '@type': 'Event', url: expect.stringMatching(new RegExp(`/sessions/${sessionId}$`)) });
  });

  it('catalogue text cannot close the JSON-LD block', async () => {
    await t.ctx.db.execute(sql`UPDATE event_translations SET description = ${'Great </script><script>alert(1)</script> show'} WHERE event_id = ${eventId}`);
    const html = await page(`/events/${eventId}`);
    expect(html).not.toContain('<script>alert(1)');
    const [events] = jsonLd(html);
    expect((events as { description?: string }[])[0]!.description).toContain('</script><script>alert(1)</script>');
  });
});

describe('all-in prices on the storefront (D71)', () => {
  it('"from" on the event page and every rate of the seat picker include the fees, which are named', async () => {
    const html = await page(`/events/${eventId}`);
    const from = await allInFrom(sessionId);
    expect(from).toBeGreaterThan(0);
    const rates = await queryRows<{ price: number; fee: number }>(
      t.ctx.db,
      sql`SELECT r.price, ticket_fee(r.price, s.event_id, s.id) AS fee FROM rates r JOIN sessions s ON s.id = r.session_id WHERE s.id = ${sessionId}`,
    );
    expect(rates.every((r) => r.fee > 0)).toBe(true);
    expect(html).toMatch(/Final prices: booking fees included/);
    const session = await page(`/events/${eventId}/sessions/${sessionId}`);
    const money = (minor: number) => new Intl.NumberFormat('en', { style: 'currency', currency: t.ctx.config.currency }).format(minor / 100);
    for (const r of rates) expect(session).toContain(`${money(r.price + r.fee)} (incl. ${money(r.fee)} booking fee)`);
  });
});

describe('find my order as a page (D72)', () => {
  const post = (email: string) =>
    t.app.inject({ method: 'POST', url: `/${DEMO.a.slug}/en/orders/lookup`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `email=${encodeURIComponent(email)}` });
  const lookups = async () =>
    (await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM email_outbox WHERE kind = 'order_lookup'`))[0]!.n;

  it('a form; a bad address is shown again with its error; any good address gets the same answer', async () => {
    const form = await page('/orders/lookup');
    expect(form).toContain(`action="/${DEMO.a.slug}/en/orders/lookup"`);
    const bad = await post('not-an-address');
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('aria-invalid="true"');
    expect(bad.body).toContain('value="not-an-address"');
    const before = await lookups();
    const unknown = await post('nobody-here@example.com');
    expect(unknown.statusCode).toBe(200);
    expect(unknown.body).toContain('If nobody-here@example.com has orders on this channel');
    expect(await lookups()).toBe(before); // nothing to send, and nothing said about it
    // The event list links to it.
    expect(await page('/events')).toContain(`href="/${DEMO.a.slug}/en/orders/lookup"`);
  });
});

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { bearer, buildTestApp, DEMO, tokenFor, type TestApp } from '../helpers.js';
import { createHeldOrder } from './fixtures.js';

// The language fallback rule (src/platform/i18n.ts) as buyers and channels meet it: the order read
// by the portal in `en-GB` names things as the catalogue does in `en-GB` (issue 15: it used to show
// the event's default language), an unknown language reads the default, and a translation that
// lacks one field falls back for that field only. Plus: the pages escape catalogue text.

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = await tokenFor(t.app, DEMO.a.slug, DEMO.a.key);
}, 120_000);
afterAll(() => t.close());

const portalOrder = async (lang: string, orderToken: string) => {
  const res = await t.app.inject({ url: `/api/portal/${DEMO.a.slug}/${lang}/orders/${orderToken}` });
  expect(res.statusCode).toBe(200);
  return res.json().data as { events: { id: number; name: string; sessions: { items: { rate_name: string }[] }[] }[] };
};
const catalogueEvent = async (lang: string, eventId: number) => {
  const res = await t.app.inject({ url: `/api/sales-channel/v1/${DEMO.a.slug}/${lang}/events/${eventId}`, headers: bearer(token) });
  expect(res.statusCode).toBe(200);
  return res.json().data as { name: string; description: string | null };
};
const translation = async (eventId: number, lang: string) => {
  const [row] = await queryRows<{ name: string; description: string | null }>(
    t.ctx.db,
    sql`SELECT name, description FROM event_translations WHERE event_id = ${eventId} AND lang = ${lang}`,
  );
  return row!;
};

describe('the language fallback through the routes', () => {
  it('an en-GB order names the event and the rate in English, as the en-GB catalogue does', async () => {
    const order = await createHeldOrder(t, DEMO.a.slug);
    const enGb = await portalOrder('en-GB', order.token);
    const event = enGb.events[0]!;
    const english = await translation(event.id, 'en');
    expect(event.name).toBe(english.name);
    expect(event.name).not.toBe((await translation(event.id, 'es')).name);
    expect((await catalogueEvent('en-GB', event.id)).name).toBe(event.name);
    expect(enGb.events[0]!.sessions[0]!.items[0]!.rate_name).toBe('General admission');
  });

  it("an unknown language reads the event's default language; an exact one its own", async () => {
    const order = await createHeldOrder(t, DEMO.a.slug);
    const fr = await portalOrder('fr', order.token);
    const eventId = fr.events[0]!.id;
    expect(fr.events[0]!.name).toBe((await translation(eventId, 'es')).name);
    expect(fr.events[0]!.sessions[0]!.items[0]!.rate_name).toBe('General');
    const en = await portalOrder('en', order.token);
    expect(en.events[0]!.name).toBe((await translation(eventId, 'en')).name);
  });

  it('a translation without a description gives its name and the default language the description', async () => {
    const [event] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM events ORDER BY id LIMIT 1`);
    const english = await translation(event!.id, 'en');
    const spanish = await translation(event!.id, 'es');
    await t.ctx.db.execute(sql`UPDATE event_translations SET description = NULL WHERE event_id = ${event!.id} AND lang = 'en'`);
    try {
      const page = await t.app.inject({ url: `/${DEMO.a.slug}/en/events/${event!.id}` });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`<h1>${english.name}</h1><p>${spanish.description}</p>`);
      expect(await catalogueEvent('en', event!.id)).toMatchObject({ name: english.name, description: spanish.description });
    } finally {
      await t.ctx.db.execute(sql`UPDATE event_translations SET description = ${english.description} WHERE event_id = ${event!.id} AND lang = 'en'`);
    }
  });
  it("a rate without a name in the page's language shows its name in the event's default language, as the catalogue does", async () => {
    const [rate] = await queryRows<{ id: number; session_id: number; event_id: number; name: string; names: Record<string, string> }>(
      t.ctx.db,
      sql`SELECT r.id, r.session_id, s.event_id, r.name, r.names FROM rates r JOIN sessions s ON s.id = r.session_id ORDER BY s.start_datetime, r.sort_order, r.id LIMIT 1`,
    );
    await t.ctx.db.execute(sql`UPDATE rates SET names = ${JSON.stringify({ es: 'Entrada general' })}::jsonb WHERE id = ${rate!.id}`);
    try {
      const page = await t.app.inject({ url: `/${DEMO.a.slug}/en/events/${rate!.event_id}/sessions/${rate!.session_id}` });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`<option value="${rate!.id}">Entrada general · `);
      const res = await t.app.inject({ url: `/api/sales-channel/v1/${DEMO.a.slug}/en/events/${rate!.event_id}/sessions/${rate!.session_id}`, headers: bearer(token) });
      const names = res.json().data.elements.sectors.flatMap((s: { rates: { id: number; name: string }[] }) => s.rates).filter((r: { id: number }) => r.id === rate!.id);
      expect(names.length).toBeGreaterThan(0);
      for (const r of names) expect(r.name).toBe('Entrada general');
    } finally {
      await t.ctx.db.execute(sql`UPDATE rates SET names = ${JSON.stringify(rate!.names)}::jsonb WHERE id = ${rate!.id}`);
    }
  });
});

describe('portal pages escape catalogue text by construction', () => {
  it('an event name with markup is shown as text, in content and in attributes', async () => {
    const [event] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM events ORDER BY id LIMIT 1`);
    const original = await translation(event!.id, 'es');
    const hostile = `<img src=x onerror="alert(1)"> & "Tom"`;
    await t.ctx.db.execute(sql`UPDATE event_translations SET name = ${hostile} WHERE event_id = ${event!.id} AND lang = 'es'`);
    try {
      const page = await t.app.inject({ url: `/${DEMO.a.slug}/es/events` });
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('<img');
      // In content (the card's heading link) and in an attribute (the button's aria-label).
      expect(page.body).toContain('>&lt;img src=x onerror=&quot;alert(1)&quot;> &amp; &quot;Tom&quot;</a>');
      expect(page.body).toContain('aria-label="Ver sesiones: &lt;img src=x onerror=&quot;alert(1)&quot;> &amp; &quot;Tom&quot;"');
    } finally {
      await t.ctx.db.execute(sql`UPDATE event_translations SET name = ${original.name} WHERE event_id = ${event!.id} AND lang = 'es'`);
    }
  });
});

import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { generateChannelKey } from '../../src/modules/auth/auth.service.js';
import { findChannelBySlug } from '../../src/modules/channels/channels.repo.js';
import { appTest, bearer, DEMO } from '../helpers.js';
import { createOrder } from '../orders/cart-helpers.js';

const { it, app } = appTest();

const TOKEN_URL = '/api/sales-channel/v1/auth/token';
const configUrl = (slug: string) => `/api/sales-channel/v1/${slug}/config`;
const sha256 = (value: string) => crypto.createHash('sha256').update(value).digest('hex');
const requestToken = (payload: Record<string, unknown>) => app().app.inject({ method: 'POST', url: TOKEN_URL, payload });

/** Every text value of every row of the credential tables, as the database holds them. */
async function everyStoredText(): Promise<string> {
  const rows = await queryRows<Record<string, unknown>>(
    app().ctx.db,
    sql`SELECT to_jsonb(k)::text AS row FROM widget_keys k
        UNION ALL SELECT to_jsonb(s)::text FROM server_keys s
        UNION ALL SELECT to_jsonb(a)::text FROM access_tokens a`,
  );
  return rows.map((r) => String(r.row)).join('\n');
}

describe('keys and tokens are stored only as hashes (D7, D8, D39)', () => {
  it('a widget key, a server key and a token: sha256 hex of the secret in the table, the secret nowhere', async ({ t }) => {
    const channel = (await findChannelBySlug(t.ctx.db, DEMO.c.slug))!;
    const widget = await generateChannelKey(t.ctx, 'widget', channel.id);
    const server = await generateChannelKey(t.ctx, 'server', channel.id);
    expect(widget.key).toMatch(/^wk_[A-Za-z0-9]{40}$/);
    expect(server.key).toMatch(/^sk_[A-Za-z0-9]{40}$/);

    const issued = await requestToken({ sales_channel_slug: DEMO.c.slug, widget_key: widget.key, client_id: 'hash-check' });
    expect(issued.statusCode).toBe(200);
    const token: string = issued.json().data.access_token;
    // The token works: what the table holds is enough to recognise it.
    expect((await t.app.inject({ url: configUrl(DEMO.c.slug), headers: bearer(token) })).statusCode).toBe(200);

    const [widgetRow] = await queryRows<{ key_hash: string; last_four: string }>(t.ctx.db, sql`SELECT key_hash, last_four FROM widget_keys WHERE id = ${widget.id}`);
    expect(widgetRow).toEqual({ key_hash: sha256(widget.key), last_four: widget.key.slice(-4) });
    const [serverRow] = await queryRows<{ key_hash: string; last_four: string }>(t.ctx.db, sql`SELECT key_hash, last_four FROM server_keys WHERE id = ${server.id}`);
    expect(serverRow).toEqual({ key_hash: sha256(server.key), last_four: server.key.slice(-4) });
    const tokenRows = await queryRows<{ token_hash: string; scope: string; widget_key_id: number }>(
      t.ctx.db,
      sql`SELECT token_hash, scope, widget_key_id FROM access_tokens WHERE token_hash = ${sha256(token)}`,
    );
    expect(tokenRows).toEqual([{ token_hash: sha256(token), scope: 'widget', widget_key_id: widget.id }]);

    // No column of any credential row holds a secret, nor its body without the prefix.
    const stored = await everyStoredText();
    for (const secret of [widget.key, server.key, token]) {
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(secret.slice(3));
    }
  });

  it('the demo keys of D37 and D43 are stored hashed too', async () => {
    const stored = await everyStoredText();
    for (const m of ['a', 'b', 'c', 'd'] as const) {
      expect(stored).not.toContain(DEMO[m].key);
      expect(stored).not.toContain(DEMO[m].serverKey);
      expect(stored).toContain(sha256(DEMO[m].key));
      expect(stored).toContain(sha256(DEMO[m].serverKey));
    }
  });
});

describe('keys are at most 64 characters (SPEC Channel credentials, D7, D39)', () => {
  const kinds = [
    { field: 'widget_key', scope: 'widget', prefix: 'wk_' },
    { field: 'server_key', scope: 'server', prefix: 'sk_' },
  ] as const;
  it.each(kinds)('a $field of 64 characters is accepted; 65 is refused with 422 and the field named', async ({ field, scope, prefix }) => {
    const channel = (await findChannelBySlug(app().ctx.db, DEMO.d.slug))!;
    const key64 = `${prefix}${'k'.repeat(61)}`;
    expect(key64).toHaveLength(64);
    await generateChannelKey(app().ctx, scope, channel.id, key64);
    const ok = await requestToken({ sales_channel_slug: DEMO.d.slug, [field]: key64, client_id: `${scope}-64` });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ status: 200, success: true, data: { token_type: 'Bearer', sales_channel_slug: DEMO.d.slug, scope } });

    const tooLong = await requestToken({ sales_channel_slug: DEMO.d.slug, [field]: `${key64}k`, client_id: `${scope}-65` });
    expect(tooLong.statusCode).toBe(422);
    const body = tooLong.json();
    expect(body).toMatchObject({ status: 422, success: false, code: 'validation_failed', message: 'The given data was invalid' });
    expect(Object.keys(body.errors)).toEqual([field]);
    expect(body.errors[field]).toEqual([expect.any(String)]);
  });
});

describe('config endpoint: the fields SPEC fixes per model (A-D)', () => {
  // SPEC "Channel configuration": allows_widget in C and D; confirm required in B and D;
  // checkout_url of model B only; the portal's checkout address for model C's widget.
  const expected = {
    a: { integration_mode: 'portal_only', allows_widget: false, requires_external_payment_callback: false, checkout_url: null, portal_checkout_base_url: null },
    b: {
      integration_mode: 'portal_external_payment',
      allows_widget: false,
      requires_external_payment_callback: true,
      checkout_url: 'http://taquilla.test/widget/examples/model-b/checkout',
      portal_checkout_base_url: null,
    },
    c: {
      integration_mode: 'widget_platform_payment',
      allows_widget: true,
      requires_external_payment_callback: false,
      checkout_url: null,
      // PORTAL_CHECKOUT_BASE_URL, which defaults to PUBLIC_BASE_URL (the test app's).
      portal_checkout_base_url: 'http://taquilla.test',
    },
    d: { integration_mode: 'widget_external_payment', allows_widget: true, requires_external_payment_callback: true, checkout_url: null, portal_checkout_base_url: null },
  } as const;

  it.each(['a', 'b', 'c', 'd'] as const)('model %s', async (m) => {
    const token = await requestToken({ sales_channel_slug: DEMO[m].slug, widget_key: DEMO[m].key, client_id: 'config-fields' });
    const res = await app().app.inject({ url: configUrl(DEMO[m].slug), headers: bearer(token.json().data.access_token) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 200, success: true, data: { sales_channel_slug: DEMO[m].slug, ...expected[m] } });
    expect(app().config.portalCheckoutBaseUrl).toBe('http://taquilla.test');
  });

  it("model C's portal_checkout_base_url leads to the portal's checkout page for the widget's order", async ({ t }) => {
    const token = (await requestToken({ sales_channel_slug: DEMO.c.slug, widget_key: DEMO.c.key, client_id: 'config-checkout' })).json().data.access_token;
    const base = (await t.app.inject({ url: configUrl(DEMO.c.slug), headers: bearer(token) })).json().data.portal_checkout_base_url as string;
    const [seat] = await queryRows<{ id: number; rate_id: number }>(
      t.ctx.db,
      sql`SELECT ss.id, (SELECT r.id FROM rates r WHERE r.session_id = ss.session_id ORDER BY r.sort_order LIMIT 1) AS rate_id
          FROM session_seats ss WHERE ss.seat_id IS NOT NULL AND ss.status = 'available' ORDER BY ss.id DESC LIMIT 1`,
    );
    const created = await createOrder(t.app, token, DEMO.c.slug, { session_seat_id: seat!.id, rate_id: seat!.rate_id });
    // SPEC: the widget sends the browser to {portal_checkout_base_url}/{slug}/{lang}/checkout?order_token=...
    const page = new URL(`${base}/${DEMO.c.slug}/en/checkout?order_token=${created.order_token}`);
    expect(page.origin).toBe('http://taquilla.test');
    const res = await t.app.inject({ url: `${page.pathname}${page.search}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
  });
});

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { findChannelBySlug } from '../../src/modules/channels/channels.repo.js';
import { bearer, buildTestApp, DEMO, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';

/** A small cap, so that the test reaches it with real token requests. */
const CAP = 3;

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { MAX_LIVE_TOKENS_PER_CHANNEL: String(CAP) } });
}, 120_000);
afterAll(() => t.close());

const config = (slug: string, token: string) => t.app.inject({ url: `/api/sales-channel/v1/${slug}/config`, headers: bearer(token) });

async function liveTokens(slug: string) {
  const channel = (await findChannelBySlug(t.ctx.db, slug))!;
  return queryRows<{ client_id: string; scope: string }>(
    t.ctx.db,
    sql`SELECT client_id, scope FROM access_tokens WHERE channel_id = ${channel.id} AND revoked_at IS NULL ORDER BY id`,
  );
}

describe('live tokens per channel are capped, oldest revoked first (D38, MAX_LIVE_TOKENS_PER_CHANNEL)', () => {
  it('the cap is the configured one', () => {
    expect(t.config.maxLiveTokensPerChannel).toBe(CAP);
  });

  it('buyers past the cap: the oldest tokens stop with 401 invalid_token, the newest work', async () => {
    const server = await serverTokenFor(t.app, DEMO.c.slug, DEMO.c.serverKey, 'cap-server');
    const other = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key, 'cap-other-channel');
    const buyers = ['buyer-1', 'buyer-2', 'buyer-3', 'buyer-4', 'buyer-5'];
    const tokens: string[] = [];
    for (const clientId of buyers) tokens.push(await tokenFor(t.app, DEMO.c.slug, DEMO.c.key, clientId));

    for (const old of tokens.slice(0, buyers.length - CAP)) {
      const res = await config(DEMO.c.slug, old);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ status: 401, success: false, code: 'invalid_token', message: 'The access token is invalid, expired or revoked' });
    }
    for (const recent of tokens.slice(-CAP)) {
      const res = await config(DEMO.c.slug, recent);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.sales_channel_slug).toBe(DEMO.c.slug);
    }
    // In the database: exactly the newest CAP widget tokens live. The server token is capped apart
    // (D41) and another channel's tokens are not counted.
    expect(await liveTokens(DEMO.c.slug)).toEqual([
      { client_id: 'cap-server', scope: 'server' },
      ...buyers.slice(-CAP).map((client_id) => ({ client_id, scope: 'widget' })),
    ]);
    expect((await config(DEMO.c.slug, server)).statusCode).toBe(200);
    expect((await config(DEMO.d.slug, other)).statusCode).toBe(200);
  });

  it('a new token of a buyer already live replaces it and evicts nobody', async () => {
    const before = await liveTokens(DEMO.c.slug);
    const widgetBefore = before.filter((r) => r.scope === 'widget').map((r) => r.client_id);
    expect(widgetBefore).toHaveLength(CAP);
    const again = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key, widgetBefore[0]);
    expect((await config(DEMO.c.slug, again)).statusCode).toBe(200);
    const after = (await liveTokens(DEMO.c.slug)).filter((r) => r.scope === 'widget').map((r) => r.client_id);
    expect(after.sort()).toEqual([...widgetBefore].sort());
  });
});

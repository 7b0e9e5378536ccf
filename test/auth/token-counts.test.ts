import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { revokeChannelKey } from '../../src/modules/auth/auth.service.js';
import * as keysRepo from '../../src/modules/auth/channel-keys.repo.js';
import { findChannelBySlug } from '../../src/modules/channels/channels.repo.js';
import { buildTestApp, DEMO, isPostgres, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';

// D41's cap reads the live tokens of a channel and scope from access_token_counts (migration 0130),
// kept by a deferred trigger on access_tokens, instead of walking the tokens. The count must be
// the truth after every way a token starts or stops living, and under parallel token requests
// (PostgreSQL: real concurrency, many connections).

const CAP = 5;

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { MAX_LIVE_TOKENS_PER_CHANNEL: String(CAP) }, poolSize: 20 });
}, 120_000);
afterAll(() => t.close());

/** Per channel and scope: the kept count beside the live tokens counted one by one; only where they differ. */
async function countsThatDisagree() {
  return queryRows<{ channel_id: number; scope: string; kept: number; real: number }>(
    t.ctx.db,
    sql`WITH kept AS (SELECT channel_id, scope, sum(live)::int AS kept FROM access_token_counts GROUP BY channel_id, scope),
             real AS (SELECT channel_id, scope, count(*)::int AS real FROM access_tokens WHERE revoked_at IS NULL GROUP BY channel_id, scope)
        SELECT coalesce(k.channel_id, r.channel_id) AS channel_id, coalesce(k.scope, r.scope) AS scope,
               coalesce(k.kept, 0) AS kept, coalesce(r.real, 0) AS real
        FROM kept k FULL JOIN real r ON r.channel_id = k.channel_id AND r.scope = k.scope
        WHERE coalesce(k.kept, 0) <> coalesce(r.real, 0)`,
  );
}

async function liveCount(slug: string, scope: 'widget' | 'server') {
  const channel = (await findChannelBySlug(t.ctx.db, slug))!;
  const [row] = await queryRows<{ n: number }>(
    t.ctx.db,
    sql`SELECT count(*)::int AS n FROM access_tokens WHERE channel_id = ${channel.id} AND scope = ${scope} AND revoked_at IS NULL`,
  );
  return row!.n;
}

describe('the live-token count of D41 (access_token_counts)', () => {
  it('agrees with the tokens after issuing, replacing, evicting at the cap and revoking a key', async () => {
    for (let i = 0; i < CAP + 3; i++) await tokenFor(t.app, DEMO.c.slug, DEMO.c.key, `count-buyer-${i}`);
    await tokenFor(t.app, DEMO.c.slug, DEMO.c.key, `count-buyer-${CAP + 2}`); // replaces its own token
    for (let i = 0; i < 3; i++) await serverTokenFor(t.app, DEMO.c.slug, DEMO.c.serverKey, `count-server-${i}`);
    expect(await liveCount(DEMO.c.slug, 'widget')).toBe(CAP);
    expect(await liveCount(DEMO.c.slug, 'server')).toBe(3);
    expect(await countsThatDisagree()).toEqual([]);

    // A server key revoked: its tokens stop living, and the count follows.
    const channel = (await findChannelBySlug(t.ctx.db, DEMO.c.slug))!;
    const [serverKey] = (await keysRepo.listKeys(t.ctx.db, 'server', channel.id)).filter((k) => !k.revokedAt);
    await revokeChannelKey(t.ctx, 'server', channel.id, serverKey!.id);
    expect(await liveCount(DEMO.c.slug, 'server')).toBe(0);
    expect(await countsThatDisagree()).toEqual([]);
  });

  it(`${isPostgres ? 60 : 20} parallel token requests of one channel: the count stays exact; the next request leaves exactly the cap`, async () => {
    const n = isPostgres ? 60 : 20;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        t.app.inject({ method: 'POST', url: '/api/sales-channel/v1/auth/token', payload: { sales_channel_slug: DEMO.d.slug, widget_key: DEMO.d.key, client_id: `burst-${i}` } }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(n).fill(200));
    expect(await countsThatDisagree()).toEqual([]);
    // Requests that ran together may each have counted without the others' tokens; the next one
    // evicts what they left beyond the cap.
    expect(await liveCount(DEMO.d.slug, 'widget')).toBeGreaterThanOrEqual(CAP);
    await tokenFor(t.app, DEMO.d.slug, DEMO.d.key, 'after-the-burst');
    expect(await liveCount(DEMO.d.slug, 'widget')).toBe(CAP);
    expect(await countsThatDisagree()).toEqual([]);
  });
});

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, isPostgres, type TestDatabase } from '../helpers.js';

// Issue 27, "a plan fault": with statistics taken while no token was live, the revoke of
// issue_access_token (D38: the previous live token of the group) was planned on the cap index and
// walked every live token of the channel. Migration 0160 makes that plan impossible: whatever the
// statistics, the revoke reads a handful of buffers. PostgreSQL only (PGlite has one backend and
// plans the same way, but buffer counts and plan caching are PostgreSQL's).

/** The revoke as issue_access_token (src/db/functions/120_issue_access_token.sql) runs it. */
const REVOKE_IN_FUNCTION =
  'UPDATE access_tokens SET revoked_at = p_now WHERE channel_id = p_channel_id AND scope = p_scope AND client_id = p_client_id AND revoked_at IS NULL';
/** The same statement with the function's variables as parameters, as PL/pgSQL plans it. */
const REVOKE = 'UPDATE access_tokens SET revoked_at = $4 WHERE channel_id = $1 AND scope = $2 AND client_id = $3 AND revoked_at IS NULL';
const LIVE = 1_000;

let db: TestDatabase;
let client: pg.Client;
let channelId: number;
let widgetKeyId: number;

const one = async <T>(text: string, values: unknown[] = []) => (await client.query(text, values)).rows[0] as T;

/** Issues tokens through issue_access_token, one transaction per statement of `perStatement`. */
async function issue(clients: string[], tag: string, perStatement = 100) {
  for (let i = 0; i < clients.length; i += perStatement) {
    await client.query(
      `SELECT issue_access_token($1, 'widget', $2, NULL, c, 'plan-' || $3 || '-' || c, now(), now() + interval '1 hour', 1000000, 'token_plan_test', 100)
       FROM unnest($4::text[]) AS c`,
      [channelId, widgetKeyId, tag, clients.slice(i, i + perStatement)],
    );
  }
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** EXPLAIN (ANALYZE, BUFFERS) of the revoke for one group, rolled back; with a generic or a custom plan. */
async function explainRevoke(clientId: string, mode: 'force_generic_plan' | 'force_custom_plan'): Promise<PlanNode> {
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL plan_cache_mode = ${mode}`);
    await client.query(`PREPARE token_revoke(int, text, text, timestamptz) AS ${REVOKE}`);
    // EXECUTE takes no bind parameters: the values are literals (an int and an escaped text).
    const res = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE token_revoke(${Number(channelId)}, 'widget', ${client.escapeLiteral(clientId)}, now())`);
    const plan = (res.rows[0] as { 'QUERY PLAN': { Plan: PlanNode }[] })['QUERY PLAN'][0]!.Plan;
    return plan;
  } finally {
    await client.query('ROLLBACK');
    await client.query('DEALLOCATE ALL');
  }
}

/** The scan under the UPDATE: what the revoke reads to find the group's token. */
const scanOf = (plan: PlanNode): PlanNode => {
  expect(plan['Node Type']).toBe('ModifyTable');
  return plan.Plans![0]!;
};

describe.runIf(isPostgres)('the revoke of issue_access_token reads a handful of buffers whatever the statistics (issue 27)', () => {
  beforeAll(async () => {
    db = await createTestDatabase({ poolSize: 1 });
    client = new pg.Client({ connectionString: db.url! });
    await client.connect();
    const organiser = await one<{ id: number }>(`INSERT INTO organisers (name) VALUES ('Plan') RETURNING id`);
    channelId = (await one<{ id: number }>(
      `INSERT INTO sales_channels (organiser_id, slug, name, integration_mode) VALUES ($1, 'plan-d', 'Plan D', 'widget_external_payment') RETURNING id`,
      [organiser.id],
    )).id;
    widgetKeyId = (await one<{ id: number }>(`INSERT INTO widget_keys (channel_id, key_hash, last_four) VALUES ($1, 'plan-key', 'abcd') RETURNING id`, [channelId])).id;
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it('the statement explained is the one the function runs', async () => {
    const { src } = await one<{ src: string }>(`SELECT prosrc AS src FROM pg_proc WHERE proname = 'issue_access_token'`);
    expect(src.replace(/\s+/g, ' ')).toContain(REVOKE_IN_FUNCTION);
  });

  it(`statistics taken with no live token (every earlier token revoked), then ${LIVE} live tokens: the revoke finds its group's token on the group index`, async () => {
    // An earlier sale: tokens issued, then all revoked (a reset, or simply time), then ANALYZE.
    const earlier = Array.from({ length: LIVE }, (_, i) => `earlier-${i}`);
    await issue(earlier, 'earlier');
    await client.query(`UPDATE access_tokens SET revoked_at = now() WHERE channel_id = $1 AND revoked_at IS NULL`, [channelId]);
    await client.query('ANALYZE access_tokens');
    // The on-sale: buyers take tokens, and some renew theirs (revoking their previous one) in between.
    const buyers = Array.from({ length: LIVE }, (_, i) => `buyer-${i}`);
    await issue(buyers, 'first');
    await issue(buyers.filter((_, i) => i % 3 === 0), 'renewed');
    const { n } = await one<{ n: number }>(`SELECT count(*)::int AS n FROM access_tokens WHERE channel_id = $1 AND revoked_at IS NULL`, [channelId]);
    expect(n).toBe(LIVE);

    for (const mode of ['force_generic_plan', 'force_custom_plan'] as const) {
      for (const buyer of ['buyer-0', 'buyer-500', 'buyer-999', 'nobody-yet']) {
        const scan = scanOf(await explainRevoke(buyer, mode));
        const buffers = scan['Shared Hit Blocks'] + scan['Shared Read Blocks'];
        expect(buffers, `${mode} ${buyer}: ${scan['Node Type']} on ${scan['Index Name']}`).toBeLessThanOrEqual(20);
        expect(scan['Rows Removed by Filter'] ?? 0, `${mode} ${buyer}`).toBe(0);
        expect(scan['Index Name'], `${mode} ${buyer}`).toBe('access_tokens_live_idx');
      }
    }
  }, 60_000);

  it('the same with statistics of an empty table, and after a fresh ANALYZE', async () => {
    await client.query(`DELETE FROM access_tokens`);
    await client.query('ANALYZE access_tokens');
    await issue(Array.from({ length: LIVE }, (_, i) => `empty-${i}`), 'empty');
    for (const analyzeFirst of [false, true]) {
      if (analyzeFirst) await client.query('ANALYZE access_tokens');
      for (const mode of ['force_generic_plan', 'force_custom_plan'] as const) {
        const scan = scanOf(await explainRevoke('empty-500', mode));
        expect(scan['Shared Hit Blocks'] + scan['Shared Read Blocks'], `${mode}, analyzed: ${analyzeFirst}`).toBeLessThanOrEqual(20);
        expect(scan['Rows Removed by Filter'] ?? 0).toBe(0);
      }
    }
  }, 60_000);

  it('the cap eviction states the cap index\'s predicate (so that it may walk it in id order)', async () => {
    const { src } = await one<{ src: string }>(`SELECT prosrc AS src FROM pg_proc WHERE proname = 'issue_access_token'`);
    expect(src.replace(/\s+/g, ' ')).toContain('WHERE channel_id = p_channel_id AND scope = p_scope AND revoked_at IS NULL AND id > 0 AND id < v_new_id ORDER BY id');
    const { predicate } = await one<{ predicate: string }>(
      `SELECT pg_get_expr(indpred, indrelid) AS predicate FROM pg_index WHERE indexrelid = 'access_tokens_cap_idx'::regclass`,
    );
    expect(predicate).toBe('((revoked_at IS NULL) AND (id > 0))');
  });
});

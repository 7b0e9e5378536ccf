import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { account } from '../admin/admin-helpers.js';
import { buildTestApp, DEMO, serverTokenFor, type TestApp } from '../helpers.js';
import { createHeldOrder } from '../portal/fixtures.js';
import {
  deref,
  fieldPaths,
  JSON_HOSTILES,
  randomJsonHostile,
  randomUrlHostile,
  sample,
  URL_HOSTILES,
  withValueAt,
  type JsonHostile,
  type JsonSchema,
  type UrlHostile,
} from './fuzz-values.js';

// D47: no input yields a 5xx, and every error leaves in the envelope of D4. This test walks EVERY
// operation of the served OpenAPI document and, one field at a time, replaces a valid baseline value
// with hostile ones (the classes of issue 14 plus fast-check's random values). Requests carry valid
// credentials and real ids (a fresh cart per cart operation) so that they reach the handlers.

const RANDOM_RUNS_PER_FIELD = 2;
const SEED = Number(process.env.FUZZ_SEED ?? 20_251_114);

interface Operation {
  method: string;
  path: string;
  parameters: { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema: JsonSchema }[];
  body: JsonSchema | null;
}

interface Case {
  op: Operation;
  what: string;
  url: string;
  payload?: string;
}

let t: TestApp;
let doc: Record<string, unknown>;
/** demo-d's server token: it may call every B2B operation of model D (D40), so every handler is reached. */
let serverToken: string;
let adminToken: string;
/** Values of fields a schema cannot describe: real ids, codes and the like of the demo data. */
let known: Record<string, unknown>;

beforeAll(async () => {
  t = await buildTestApp({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '1000000' } });
  serverToken = await serverTokenFor(t.app, DEMO.d.slug);
  adminToken = (await account(t.ctx, 'fuzz-admin@taquilla.test')).token;
  doc = (await t.app.inject({ url: '/api/openapi.json' })).json();

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
  known = {
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
}, 180_000);
afterAll(() => t?.close());

/** Every operation of the served OpenAPI document, B2B and portal first so that admin changes come last. */
function operations(): Operation[] {
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
}

/** Baseline values of one operation; cart operations get a fresh pending cart of their own. */
async function baselineFor(op: Operation): Promise<Record<string, unknown>> {
  const values = { ...known };
  const portal = op.path.startsWith('/api/portal/');
  if (portal) values.salesChannelSlug = DEMO.a.slug;
  if (op.path.includes('{orderToken}') || op.path.includes('/orders/{')) {
    const held = await createHeldOrder(t, portal ? DEMO.a.slug : DEMO.d.slug);
    const [item] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM order_items WHERE order_id = ${held.id} ORDER BY id LIMIT 1`);
    Object.assign(values, { orderToken: held.token, order_token: held.token, itemId: item!.id, item_ids: [item!.id], amount: held.total / 100 });
  }
  return values;
}

function headersFor(op: Operation): Record<string, string> {
  if (op.path.startsWith('/api/admin/')) return { authorization: `Bearer ${adminToken}` };
  if (op.path.startsWith('/api/sales-channel/v1/{')) return { authorization: `Bearer ${serverToken}` };
  return {};
}

/** The cases of one operation: each parameter and each body field in turn takes each hostile value. */
function casesFor(op: Operation, values: Record<string, unknown>, random: RandomSource): Case[] {
  const pathValues: Record<string, string> = {};
  for (const p of op.parameters.filter((p) => p.in === 'path')) pathValues[p.name] = encodeURIComponent(String(sample(doc, p.schema, values, p.name)));
  const query = op.parameters.filter((p) => p.in === 'query');
  const baseBody = op.body ? sample(doc, op.body, values) : undefined;
  const urlOf = (override: Record<string, string> = {}, queryText = '') =>
    op.path.replace(/\{(\w+)\}/g, (_, name: string) => override[name] ?? pathValues[name]!) + queryText;
  const bodyText = baseBody === undefined ? undefined : JSON.stringify(baseBody);
  const cases: Case[] = [];
  const urlValues = (key: string): UrlHostile[] => [...once(key, URL_HOSTILES), ...Array.from({ length: RANDOM_RUNS_PER_FIELD }, random.url)];
  const jsonValues = (key: string): JsonHostile[] => [...once(key, JSON_HOSTILES), ...Array.from({ length: RANDOM_RUNS_PER_FIELD }, random.json)];
  const keyOf = (where: string, schema: JsonSchema) => `${where} ${JSON.stringify(deref(doc, schema))}`;

  for (const p of op.parameters.filter((p) => p.in === 'path')) {
    for (const v of urlValues(keyOf(`path ${p.name}`, p.schema))) cases.push({ op, what: `path ${p.name} = ${v.label}`, url: urlOf({ [p.name]: v.encoded }), payload: bodyText });
  }
  for (const p of query) {
    const repeated = deref(doc, p.schema).type === 'array';
    for (const v of urlValues(keyOf(`query ${p.name}`, p.schema))) {
      const pair = `${encodeURIComponent(p.name)}=${v.encoded}`;
      cases.push({ op, what: `query ${p.name} = ${v.label}`, url: urlOf({}, `?${repeated ? `${pair}&${pair}` : pair}`), payload: bodyText });
    }
  }
  if (op.body) {
    const MARKER = '"__fuzz_marker__"';
    for (const field of fieldPaths(doc, op.body)) {
      const template = JSON.stringify(withValueAt(baseBody, field, '__fuzz_marker__'));
      for (const v of jsonValues(keyOf(`body ${field.join('.')}`, schemaAt(op.body, field)))) cases.push({ op, what: `body ${field.join('.')} = ${v.label}`, url: urlOf(), payload: template.replace(MARKER, v.json) });
    }
    for (const whole of ['[]', '"text"', 'null', '42', '{}', '{"__proto__": {"x": 1}}']) {
      cases.push({ op, what: `body = ${whole}`, url: urlOf(), payload: whole });
    }
  }
  return cases;
}

/**
 * The fixed hostile values for a field: all of them the first time a parameter (name and schema)
 * is met, then a rotating few, so that the twenty routes sharing `salesChannelSlug` do not repeat
 * the same cases twenty times (it keeps the test well under a minute).
 */
const metBefore = new Map<string, number>();
function once<T>(key: string, values: T[]): T[] {
  const times = metBefore.get(key) ?? 0;
  metBefore.set(key, times + 1);
  if (times === 0) return values;
  const few = 3;
  return Array.from({ length: few }, (_, i) => values[(times * few + i) % values.length]!);
}

/** The schema of the body field at `path` (for recognising a field met before in another route). */
function schemaAt(body: JsonSchema, path: (string | number)[]): JsonSchema {
  let schema = deref(doc, body);
  for (const step of path) {
    const options = schema.anyOf ?? schema.oneOf;
    if (options) schema = deref(doc, options.find((o) => deref(doc, o).type !== 'null') ?? options[0]!);
    schema = deref(doc, (typeof step === 'number' ? schema.items : schema.properties?.[step]) ?? {});
  }
  return schema;
}

interface RandomSource {
  url(): UrlHostile;
  json(): JsonHostile;
}

/** fast-check's random values from a fixed seed (FUZZ_SEED to vary it), handed out in turn. */
function randomSource(): RandomSource {
  const urls = fc.sample(randomUrlHostile, { seed: SEED, numRuns: 5_000 });
  const jsons = fc.sample(randomJsonHostile, { seed: SEED, numRuns: 5_000 });
  let u = 0;
  let j = 0;
  return { url: () => urls[u++ % urls.length]!, json: () => jsons[j++ % jsons.length]! };
}

/** What must hold for every answer: no 5xx; an error body is the D4 envelope with its own status. */
function problemOf(status: number, contentType: string | undefined, body: string): string | null {
  if (status >= 500) return `answered ${status}: ${body.slice(0, 200)}`;
  if (status < 400) return null;
  if (!contentType?.startsWith('application/json')) return `error ${status} is not JSON (${contentType})`;
  const parsed = JSON.parse(body) as Record<string, unknown>;
  const keys = Object.keys(parsed).sort().join(',');
  const envelopeKeys = parsed.errors === undefined ? 'code,message,status,success' : 'code,errors,message,status,success';
  if (keys !== envelopeKeys || parsed.status !== status || parsed.success !== false || typeof parsed.message !== 'string' || !/^[a-z][a-z0-9_]*$/.test(String(parsed.code))) {
    return `error ${status} outside the envelope: ${body.slice(0, 200)}`;
  }
  return null;
}

describe('schema-driven fuzz of every operation (D47)', () => {
  it('no 5xx and every error in the D4 envelope', async () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(60);
    const random = randomSource();
    const statuses = new Map<number, number>();
    const problems: string[] = [];
    let requests = 0;
    const started = Date.now();
    for (const op of ops) {
      const values = await baselineFor(op);
      const headers = headersFor(op);
      for (const c of casesFor(op, values, random)) {
        const res = await t.app.inject({
          method: op.method as 'GET',
          url: c.url,
          headers: c.payload === undefined ? headers : { ...headers, 'content-type': 'application/json' },
          payload: c.payload,
        });
        requests++;
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        const problem = problemOf(res.statusCode, res.headers['content-type'] as string | undefined, res.body);
        // The request's body goes with the finding, so that a failure can be replayed by hand.
        if (problem) problems.push(`${op.method} ${op.path} [${c.what}]: ${problem}; body ${c.payload?.slice(0, 300) ?? '-'}`);
      }
    }
    const table = [...statuses.entries()].sort(([a], [b]) => a - b).map(([status, count]) => `  ${status}  ${count}`);
    console.log(`fuzz: ${requests} requests over ${ops.length} operations in ${((Date.now() - started) / 1000).toFixed(1)} s (seed ${SEED})\nstatus  count\n${table.join('\n')}`);
    expect(problems.slice(0, 40)).toEqual([]);
  }, 120_000);
});

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers.js';
import { openOperationsFixture, type Operation, type OperationsFixture } from './operations-fixture.js';
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

interface Case {
  op: Operation;
  what: string;
  url: string;
  payload?: string;
  /** A body that no operation may accept (D56: a field it does not know). */
  refused?: boolean;
}

let fixture: OperationsFixture;
let t: TestApp;
let doc: Record<string, unknown>;

beforeAll(async () => {
  fixture = await openOperationsFixture();
  ({ t, doc } = fixture);
}, 180_000);
afterAll(() => t?.close());

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
    if (baseBody !== null && typeof baseBody === 'object' && !Array.isArray(baseBody)) {
      const payload = JSON.stringify({ ...baseBody, __fuzz_unknown__: 1 });
      cases.push({ op, what: 'body with an unknown field', url: urlOf(), payload, refused: true });
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
  // `data` is the envelope's optional facts of some codes (not_on_sale, queue_closed, ...: schemas.ts ErrorEnvelope).
  const envelopeKeys = ['code', ...(parsed.data === undefined ? [] : ['data']), ...(parsed.errors === undefined ? [] : ['errors']), 'message', 'status', 'success'].join(',');
  if (keys !== envelopeKeys || parsed.status !== status || parsed.success !== false || typeof parsed.message !== 'string' || !/^[a-z][a-z0-9_]*$/.test(String(parsed.code))) {
    return `error ${status} outside the envelope: ${body.slice(0, 200)}`;
  }
  return null;
}

describe('schema-driven fuzz of every operation (D47)', () => {
  it('no 5xx and every error in the D4 envelope', async () => {
    const ops = fixture.operations();
    expect(ops.length).toBeGreaterThan(60);
    const random = randomSource();
    const statuses = new Map<number, number>();
    const problems: string[] = [];
    let requests = 0;
    const started = Date.now();
    for (const op of ops) {
      const values = await fixture.baselineFor(op);
      const headers = fixture.headersFor(op);
      for (const c of casesFor(op, values, random)) {
        const res = await t.app.inject({
          method: op.method as 'GET',
          url: c.url,
          headers: c.payload === undefined ? headers : { ...headers, 'content-type': 'application/json' },
          payload: c.payload,
        });
        requests++;
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        const problem =
          problemOf(res.statusCode, res.headers['content-type'] as string | undefined, res.body) ??
          (c.refused && res.statusCode < 400 ? `accepted a body it must refuse (answered ${res.statusCode})` : null);
        // The request's body goes with the finding, so that a failure can be replayed by hand.
        if (problem) problems.push(`${op.method} ${op.path} [${c.what}]: ${problem}; body ${c.payload?.slice(0, 300) ?? '-'}`);
      }
    }
    const table = [...statuses.entries()].sort(([a], [b]) => a - b).map(([status, count]) => `  ${status}  ${count}`);
    console.log(`fuzz: ${requests} requests over ${ops.length} operations in ${((Date.now() - started) / 1000).toFixed(1)} s (seed ${SEED})\nstatus  count\n${table.join('\n')}`);
    expect(problems.slice(0, 40)).toEqual([]);
  }, 120_000);
});

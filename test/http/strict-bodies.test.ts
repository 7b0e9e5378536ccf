import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { deref, sample, type JsonSchema } from './fuzz-values.js';
import { openOperationsFixture, type Operation, type OperationsFixture } from './operations-fixture.js';

// D56, table-driven over the served OpenAPI document: for EVERY operation with a JSON body and
// EVERY field of that body (nested objects and array items included), a value of the wrong JSON
// type (a number as a string, a string as a number, an array or an object where a scalar is
// expected, a scalar where an array or object is), an amount with a third decimal, and one field
// the operation does not know are each answered 422 in the D4 envelope with `errors.<field>`. The
// table is generated from the document, so an operation added without strictness fails here.

const UNKNOWN = '__unknown_field__';

interface Field {
  path: (string | number)[];
  schema: JsonSchema;
}

interface Case {
  field: string;
  what: string;
  payload: string;
}

let fixture: OperationsFixture;
let doc: Record<string, unknown>;
/** A check-in device of a list of the first session, so that the check-in API's bodies reach validation. */
let device: { token: string; listId: number };

beforeAll(async () => {
  fixture = await openOperationsFixture();
  doc = fixture.doc;
  const admin = { ...fixture.headersFor({ method: 'POST', path: '/api/admin/', parameters: [], body: null }), 'content-type': 'application/json' };
  const [session] = await queryRows<{ id: number; organiser_id: number }>(
    fixture.t.ctx.db,
    sql`SELECT s.id, e.organiser_id FROM sessions s JOIN events e ON e.id = s.event_id ORDER BY s.start_datetime, s.id LIMIT 1`,
  );
  const organiser_id = session!.organiser_id;
  const list = await fixture.t.app.inject({ method: 'POST', url: '/api/admin/v1/checkin/lists', headers: admin, payload: { organiser_id, name: 'Strict', session_ids: [session!.id] } });
  expect(list.statusCode, list.body).toBe(201);
  const listId = list.json().data.id as number;
  const created = await fixture.t.app.inject({ method: 'POST', url: '/api/admin/v1/checkin/devices', headers: admin, payload: { organiser_id, name: 'Gate', list_ids: [listId] } });
  expect(created.statusCode, created.body).toBe(201);
  device = { token: created.json().data.token as string, listId };
}, 180_000);
afterAll(() => fixture?.t.close());

/** A schema without its `null` branch (a nullable field is tested on its value's type). */
function nonNull(input: JsonSchema): JsonSchema {
  const schema = deref(doc, input);
  const options = schema.anyOf ?? schema.oneOf;
  if (!options) return schema;
  const real = options.map((o) => deref(doc, o)).filter((o) => o.type !== 'null');
  return real.length === 1 ? nonNull(real[0]!) : schema;
}

/** The JSON type a field expects: from `type`, a `const`, or the branches of a union that agree. */
function typeOf(input: JsonSchema): string | null {
  const schema = nonNull(input);
  const type = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : schema.type;
  if (typeof type === 'string') return type === 'integer' ? 'number' : type;
  if (Array.isArray(type) && type.length === 1) return type[0] === 'integer' ? 'number' : type[0]!;
  if (schema.const !== undefined) return typeof schema.const;
  if (schema.enum?.every((v) => typeof v === typeof schema.enum![0])) return typeof schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (options) {
    const types = new Set(options.map((o) => typeOf(o)));
    return types.size === 1 ? [...types][0]! : null;
  }
  return null;
}

/** Every field of a body schema: properties of objects (and their maps' keys), items of arrays. */
function fieldsOf(input: JsonSchema, prefix: (string | number)[] = [], depth = 0): Field[] {
  const schema = nonNull(input);
  if (depth > 4) return [];
  const out: Field[] = [];
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    out.push({ path: [...prefix, key], schema: child }, ...fieldsOf(child, [...prefix, key], depth + 1));
  }
  for (const [pattern, child] of Object.entries(schema.patternProperties ?? {})) {
    // A closed map of language codes: its key `es`; a free map (`^.*$` of anything) has no type to break.
    if (pattern !== '^.*$') out.push({ path: [...prefix, 'es'], schema: child }, ...fieldsOf(child, [...prefix, 'es'], depth + 1));
  }
  if (schema.type === 'array' && schema.items) out.push({ path: [...prefix, 0], schema: schema.items }, ...fieldsOf(schema.items, [...prefix, 0], depth + 1));
  return out;
}

/** The objects of a body schema that list their properties (the top level and nested ones). */
function objectsOf(input: JsonSchema, prefix: (string | number)[] = [], depth = 0): (string | number)[][] {
  const schema = nonNull(input);
  if (depth > 4) return [];
  const out: (string | number)[][] = [];
  if (schema.properties) out.push(prefix);
  for (const [key, child] of Object.entries(schema.properties ?? {})) out.push(...objectsOf(child, [...prefix, key], depth + 1));
  if (schema.type === 'array' && schema.items) out.push(...objectsOf(schema.items, [...prefix, 0], depth + 1));
  return out;
}

/** Writes `value` at `path` of a copy of `body`, creating arrays for numeric steps and objects for the others. */
function withValueAt(body: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (typeof head === 'number') {
    const copy: unknown[] = Array.isArray(body) ? [...body] : [];
    copy[head] = withValueAt(copy[head], rest, value);
    return copy;
  }
  const copy: Record<string, unknown> = { ...((body as object | null) ?? {}) };
  copy[head!] = withValueAt(copy[head!], rest, value);
  return copy;
}

/** The value of `body` at `path`. */
const valueAt = (body: unknown, path: (string | number)[]): unknown =>
  path.reduce<unknown>((node, key) => (node as Record<string | number, unknown> | undefined)?.[key], body);

/** The wrong values of a field, by the JSON type it expects; amounts also with a third decimal. */
function wrongValues(schema: JsonSchema, valid: unknown): [string, unknown][] {
  const type = typeOf(schema);
  const number = typeof valid === 'number' ? valid : 1;
  const text = typeof valid === 'string' ? valid : 'text';
  const out: [string, unknown][] = [];
  switch (type) {
    case 'number':
      out.push(['a number as a string', String(number)], ['an array', [number]], ['an object', { value: number }], ['a boolean', true]);
      break;
    case 'string':
      out.push(['a number', 12], ['an array', [text]], ['an object', { value: text }], ['a boolean', true]);
      break;
    case 'boolean':
      out.push(['a string', 'true'], ['a number', 1], ['an array', [true]]);
      break;
    case 'array':
      out.push(['a scalar', 'text'], ['an object', {}]);
      break;
    case 'object':
      out.push(['a scalar', 'text'], ['an array', []]);
      break;
    default:
      break;
  }
  if ((nonNull(schema) as Record<string, unknown>)['x-max-decimals'] === 2) {
    out.push(['three decimals', 12.345], ['a valid amount + 1e-9', number + 1e-9]);
  }
  return out;
}

/** The cases of one operation, each a whole body text with one field broken. */
function casesFor(op: Operation, values: Record<string, unknown>): Case[] {
  const body = op.body!;
  const base = sample(doc, body, values);
  const cases: Case[] = [];
  const MARKER = '"__strict_marker__"';
  for (const field of fieldsOf(body)) {
    const template = JSON.stringify(withValueAt(base, field.path, '__strict_marker__'));
    for (const [what, value] of wrongValues(field.schema, valueAt(base, field.path))) {
      cases.push({ field: field.path.join('.'), what, payload: template.replace(MARKER, JSON.stringify(value)) });
    }
  }
  for (const where of objectsOf(body)) {
    const target = valueAt(base, where);
    const withUnknown = { ...((target as object | undefined) ?? {}), [UNKNOWN]: 'x' };
    const payload = JSON.stringify(where.length === 0 ? withUnknown : withValueAt(base, where, '__strict_marker__')).replace(MARKER, JSON.stringify(withUnknown));
    cases.push({ field: [...where, UNKNOWN].join('.'), what: 'a field the operation does not know', payload });
  }
  // The catalogue import takes any JSON at the route and checks its document itself.
  if (!deref(doc, body).properties && !deref(doc, body).type) {
    cases.push({ field: UNKNOWN, what: 'a field the operation does not know', payload: JSON.stringify({ [UNKNOWN]: 'x' }) });
  }
  return cases;
}

describe('strict JSON bodies on every operation of the OpenAPI document (D56)', () => {
  it('every wrong type, third decimal and unknown field is 422 with errors.<field>', async () => {
    const ops = fixture.operations().filter((op) => op.body);
    expect(ops.length).toBeGreaterThan(30);
    const problems: string[] = [];
    const perOperation: string[] = [];
    let requests = 0;
    for (const op of ops) {
      const values = { ...(await fixture.baselineFor(op)), listId: device.listId };
      // The portal words its messages for the buyer (error-language.test.ts); the others use SPEC's text.
      const message = op.path.startsWith('/api/portal/') ? 'Revisa los datos marcados.' : 'The given data was invalid';
      const credentials = op.path.startsWith('/api/checkin/v1/') ? { authorization: `Bearer ${device.token}` } : fixture.headersFor(op);
      const headers = { ...credentials, 'content-type': 'application/json' };
      const pathValues = Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, encodeURIComponent(String(sample(doc, p.schema, values, p.name)))]));
      const url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => pathValues[name]!);
      const cases = casesFor(op, values);
      perOperation.push(`${op.method} ${op.path}: ${cases.length}`);
      for (const c of cases) {
        const res = await fixture.t.app.inject({ method: op.method as 'POST', url, headers, payload: c.payload });
        requests++;
        const body = res.json() as { status?: number; success?: boolean; message?: string; code?: string; errors?: Record<string, string[]> };
        const ok =
          res.statusCode === 422 &&
          body.status === 422 &&
          body.success === false &&
          body.code === 'validation_failed' &&
          body.message === message &&
          (body.errors?.[c.field]?.length ?? 0) > 0;
        if (!ok) problems.push(`${op.method} ${op.path} ${c.field} = ${c.what}: ${res.statusCode} ${res.body.slice(0, 240)}; sent ${c.payload.slice(0, 200)}`);
      }
    }
    console.log(`strict bodies: ${requests} requests over ${ops.length} operations with a body\n${perOperation.join('\n')}`);
    expect(problems.slice(0, 40)).toEqual([]);
    expect(requests).toBeGreaterThan(500);
  }, 180_000);
});

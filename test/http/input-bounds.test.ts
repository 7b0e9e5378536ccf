import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INT32_MAX } from '../../src/http/schemas.js';
import { buildTestApp, type TestApp } from '../helpers.js';
import { deref, type JsonSchema } from './fuzz-values.js';

// D47, declared bounds: every integer, number, string and array a request may carry (path, query,
// body) declares its bound in the served OpenAPI. Table-driven over the document, so that a new
// route or field without a bound fails here.

let t: TestApp;
let doc: Record<string, unknown>;
beforeAll(async () => {
  t = await buildTestApp({ demo: false });
  doc = (await t.app.inject({ url: '/api/openapi.json' })).json();
}, 180_000);
afterAll(() => t?.close());

type Schema = JsonSchema & { maximum?: number; maxLength?: number; maxItems?: number; exclusiveMaximum?: number };

/** Every scalar and array schema inside `input`, with a readable location. */
function* leaves(input: Schema, at: string, depth = 0): Generator<[string, Schema]> {
  const schema = deref(doc, input) as Schema;
  if (depth > 8) return;
  for (const option of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) yield* leaves(option, at, depth + 1);
  for (const [key, child] of Object.entries(schema.properties ?? {})) yield* leaves(child, `${at}.${key}`, depth + 1);
  for (const child of Object.values(schema.patternProperties ?? {})) yield* leaves(child, `${at}.*`, depth + 1);
  if (typeof schema.additionalProperties === 'object') yield* leaves(schema.additionalProperties, `${at}.*`, depth + 1);
  if (schema.items) yield* leaves(schema.items, `${at}[]`, depth + 1);
  if (schema.type && schema.type !== 'object') yield [at, schema];
}

/** An anchored pattern without an unbounded repetition (`*`, `+`, `{n,}`) bounds the length by itself. */
function boundedPattern(pattern: string | undefined): boolean {
  if (!pattern?.startsWith('^') || !pattern.endsWith('$')) return false;
  const outsideClasses = pattern.replace(/\\./g, 'x').replace(/\[[^\]]*\]/g, 'x');
  return !/[*+]|\{\d+,\}/.test(outsideClasses);
}

/** What is missing from one schema, or null. */
function missingBound(schema: Schema): string | null {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (schema.enum || schema.const !== undefined) return null;
  if (types.includes('integer')) {
    if (schema.format !== 'int32') return 'integer without format int32';
    if (schema.maximum === undefined || schema.maximum > INT32_MAX) return 'integer without a maximum within int4';
  }
  if (types.includes('number') && schema.maximum === undefined && schema.exclusiveMaximum === undefined) return 'number without a maximum';
  if (types.includes('string') && schema.maxLength === undefined && !boundedPattern(schema.pattern)) return 'string without maxLength';
  if (types.includes('array') && schema.maxItems === undefined) return 'array without maxItems';
  return null;
}

describe('declared input bounds (D47)', () => {
  it('every integer is int32 with a maximum, every number has a maximum, every string a maxLength, every array a maxItems', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
      for (const [method, op] of Object.entries(methods)) {
        const where = `${method.toUpperCase()} ${path}`;
        const inputs: [string, Schema][] = ((op.parameters as { name: string; in: string; schema: Schema }[] | undefined) ?? []).map((p) => [
          `${p.in} ${p.name}`,
          p.schema,
        ]);
        const body = (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content?.['application/json']?.schema;
        if (body) inputs.push(['body', body]);
        for (const [name, schema] of inputs) {
          for (const [at, leaf] of leaves(schema, name)) {
            checked++;
            const problem = missingBound(leaf);
            if (problem) missing.push(`${where} ${at}: ${problem}`);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(200);
    expect(missing).toEqual([]);
  });
});

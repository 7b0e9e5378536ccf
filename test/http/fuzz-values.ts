import fc from 'fast-check';

// Values for the schema-driven fuzz test (fuzz.test.ts): a valid baseline from a JSON Schema, and
// hostile values in the two forms a request carries them (URL text and JSON).

/** A JSON Schema as served in /api/openapi.json (only the keywords the fuzzer reads). */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  minLength?: number;
  minItems?: number;
  default?: unknown;
  patternProperties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
}

/**
 * A hostile value in JSON: `json` is spliced into the body text as it is, so that values JSON.stringify
 * cannot write (1e400 parses to Infinity) reach the server too.
 */
export interface JsonHostile {
  label: string;
  json: string;
}

/** A hostile value in a URL: `encoded` is already percent-encoded (so `%00` is a NUL once decoded). */
export interface UrlHostile {
  label: string;
  encoded: string;
}

const json = (label: string, value: unknown): JsonHostile => ({ label, json: JSON.stringify(value) });
const raw = (text: string): JsonHostile => ({ label: text, json: text });

/** Every finding class of issue 14 and its neighbours, sent to every body field. */
export const JSON_HOSTILES: JsonHostile[] = [
  raw('1e400'), // JSON.parse gives Infinity
  raw('-1e400'),
  raw('1e308'),
  raw('2147483648'), // 2^31
  raw('9007199254740993'), // 2^53 + 1
  raw('99999999999999999999'),
  raw('-1'),
  raw('0'),
  raw('1.5'),
  json('"Infinity"', 'Infinity'),
  json('"NaN"', 'NaN'),
  json('NUL', 'a\u0000b'),
  json('"%00"', '%00'),
  json('overlong', 'x'.repeat(20_000)),
  json('unicode', 'ñ 中文 𝄞 \u202e \ufeff'),
  json('empty', ''),
  json('object', { $gt: '' }),
  json('array', ['x']),
  json('null', null),
  json('true', true),
  // D56: no coercion in a JSON body (strict-bodies.test.ts asserts the 422 of each on every field)
  json('"46.5"', '46.5'),
  json('[46.5]', [46.5]),
  raw('46.500000001'),
  raw('19.99'),
  raw('1.005'),
  json('{"value": 1}', { value: 1 }),
];

/** The same classes as URL text, for path and query parameters. */
export const URL_HOSTILES: UrlHostile[] = [
  'Infinity',
  '-Infinity',
  'NaN',
  '1e308',
  '2147483648',
  '9007199254740993',
  '99999999999999999999',
  '-1',
  '0',
  '1.5',
  '0x10',
  '%00',
  'a%00b',
  '%E0%A4%A', // broken percent-encoding
  'x'.repeat(300),
  encodeURIComponent('ñ 中文 𝄞'),
  '%5B%5D',
].map((encoded) => ({ label: encoded.length > 40 ? `${encoded.slice(0, 8)}…(${encoded.length})` : encoded, encoded }));

/** Random values beyond the fixed list (fast-check), in both forms. */
export const randomJsonHostile: fc.Arbitrary<JsonHostile> = fc
  .oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.double(), fc.integer(), fc.jsonValue({ maxDepth: 2 }), fc.bigInt().map(String))
  .map((value) => ({ label: 'random', json: JSON.stringify(value) ?? 'null' }));

export const randomUrlHostile: fc.Arbitrary<UrlHostile> = fc
  .oneof(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }), fc.double().map(String), fc.bigInt().map(String))
  .filter((value) => value.length > 0)
  .map((value) => ({ label: 'random', encoded: encodeURIComponent(value) }));

/** Resolves a local `$ref` of the OpenAPI document. */
export function deref(doc: Record<string, unknown>, schema: JsonSchema): JsonSchema {
  if (!schema.$ref) return schema;
  const target = schema.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], doc);
  return deref(doc, target as JsonSchema);
}

/** A valid-looking value of a schema: `known` gives the values of fields the schema cannot describe (ids, codes). */
export function sample(doc: Record<string, unknown>, input: JsonSchema, known: Record<string, unknown>, name = ''): unknown {
  const schema = deref(doc, input);
  if (name in known) return known[name];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (options) {
    const first = options.find((option) => deref(doc, option).type !== 'null') ?? options[0]!;
    return sample(doc, first, known, name);
  }
  if (schema.allOf) return sample(doc, schema.allOf[0]!, known, name);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of schema.required ?? []) out[key] = sample(doc, schema.properties?.[key] ?? {}, known, key);
      const lang = schema.patternProperties && Object.keys(schema.patternProperties)[0];
      if (lang && Object.keys(out).length === 0) out.es = 'Fuzz';
      return out;
    }
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => sample(doc, schema.items ?? {}, known, name));
    case 'integer':
    case 'number':
      return Math.max(1, schema.minimum ?? 1);
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'date-time') return '2030-06-01T19:00:00Z';
      if (schema.format === 'date') return '2030-06-01';
      if (schema.format === 'email' || name === 'email') return 'fuzz@example.com';
      return 'Fuzz value'.slice(0, Math.max(schema.minLength ?? 1, 10));
    default:
      return 'fuzz';
  }
}

/** Paths to every property of a body schema, nested objects and the first item of arrays included. */
export function fieldPaths(doc: Record<string, unknown>, input: JsonSchema, prefix: (string | number)[] = [], depth = 0): (string | number)[][] {
  const schema = deref(doc, input);
  if (depth > 3) return [];
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return options.flatMap((option) => fieldPaths(doc, option, prefix, depth + 1)).filter(uniquePath());
  const out: (string | number)[][] = [];
  if (schema.type === 'object' || schema.properties) {
    for (const [key, child] of Object.entries(schema.properties ?? {})) {
      out.push([...prefix, key], ...fieldPaths(doc, child, [...prefix, key], depth + 1));
    }
    if (schema.patternProperties) out.push([...prefix, 'es']);
  }
  if (schema.type === 'array' && schema.items) out.push(...fieldPaths(doc, schema.items, [...prefix, 0], depth + 1));
  return out;
}

function uniquePath() {
  const seen = new Set<string>();
  return (path: (string | number)[]) => {
    const key = path.join('.');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}

/** Writes `value` at `path` of a copy of `body`, creating the objects and arrays on the way. */
export function withValueAt(body: unknown, path: (string | number)[], marker: string): unknown {
  if (path.length === 0) return marker;
  const [head, ...rest] = path;
  if (Array.isArray(body)) {
    const copy: unknown[] = [...body];
    copy[head as number] = withValueAt(copy[head as number], rest, marker);
    return copy;
  }
  const copy: Record<string, unknown> = { ...((body as object | null) ?? {}) };
  copy[head!] = withValueAt(copy[head!], rest, marker);
  return copy;
}

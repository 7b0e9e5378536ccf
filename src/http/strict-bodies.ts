import type { Ajv } from '@fastify/ajv-compiler';
import type { FastifyInstance } from 'fastify';
import { hasAtMostTwoDecimals } from '../lib/money.js';
import { MAX_DECIMALS_KEYWORD } from './schemas.js';

// D56: JSON request bodies are taken as sent. Fastify's default Ajv options convert types
// (`coerceTypes`: "46.5" becomes 46.5, [46.5] becomes 46.5, 12 becomes "12") and drop the
// properties a schema does not list (`removeAdditional`: `{"ticket_ids": [1]}` silently became
// `{}`). Those options stay for the query string and the path parameters, which are text by
// nature (SPEC sends them as text); a body is validated by its own Ajv instance with neither
// (http/lazy-compilers.ts picks the instance by the part of the request), and every object of a
// body schema is closed (`additionalProperties: false`) at start, so that an unknown field is a
// 422 on `errors.<that field>` and a new route cannot forget it.
//
// Bodies that are not JSON values for the service to read (provider notifications, kept as raw
// strings for their signatures) declare no body schema and are not touched.

/** The Ajv options of body validation, over Fastify's defaults and the app's own. */
export const BODY_AJV_OPTIONS = { coerceTypes: false, removeAdditional: false } as const;

type KeywordValidate = ((schema: number, data: unknown) => boolean) & { errors?: { keyword: string; message: string; params: Record<string, unknown> }[] };

/** The message of a number with too many decimals (also the import's and the services' rule). */
const decimalsMessage = (limit: number) => (limit === 2 ? 'must have at most two decimals' : `must have at most ${limit} decimals`);

/**
 * Ajv plugin: `x-max-decimals: 2` on a number, decided on the number's shortest decimal form
 * (lib/money.ts), so that every two-decimal amount passes and 46.500000001 does not.
 */
export function maxDecimalsKeyword(ajv: Ajv): Ajv {
  const validate: KeywordValidate = (limit, data) => {
    const ok =
      typeof data !== 'number' ||
      (limit === 2 ? hasAtMostTwoDecimals(data) : Number.isFinite(data) && new RegExp(`^-?\\d+(\\.\\d{1,${limit}})?$`).test(String(data)));
    validate.errors = ok ? [] : [{ keyword: MAX_DECIMALS_KEYWORD, message: decimalsMessage(limit), params: { limit } }];
    return ok;
  };
  return ajv.addKeyword({ keyword: MAX_DECIMALS_KEYWORD, type: 'number', schemaType: 'number', errors: true, validate });
}

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Keywords whose value is one schema, and those whose value is a list or a map of schemas. */
const ONE_SCHEMA = ['items', 'additionalItems', 'contains', 'not', 'if', 'then', 'else', 'propertyNames', 'unevaluatedItems'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/**
 * A copy of a body schema with every object closed: an object schema (one with `type: "object"`,
 * `properties` or `patternProperties`) that does not say what to do with other properties gets
 * `additionalProperties: false`. One that says so (a free map, `Type.Record(..., Type.Unknown())`)
 * keeps its word. `allOf` of objects cannot be closed member by member (each would refuse the
 * others' fields): it is refused at start, with the route named.
 */
function closedBodySchema(schema: unknown, where: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => closedBodySchema(s, where));
  if (!isObject(schema)) return schema;
  if (Array.isArray(schema.allOf) && schema.allOf.some((s) => isObject(s) && (s.type === 'object' || s.properties))) {
    throw new Error(`${where}: a body schema may not combine objects with allOf (Type.Intersect); spread their properties into one Type.Object (D56)`);
  }
  const out: Schema = { ...schema };
  for (const key of ONE_SCHEMA) if (isObject(out[key])) out[key] = closedBodySchema(out[key], where);
  for (const key of SCHEMA_LISTS) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((s) => closedBodySchema(s, where));
  if (Array.isArray(out.allOf)) out.allOf = out.allOf.map((s) => closedBodySchema(s, where));
  for (const key of SCHEMA_MAPS) {
    if (isObject(out[key])) out[key] = Object.fromEntries(Object.entries(out[key]).map(([name, s]) => [name, closedBodySchema(s, where)]));
  }
  if (isObject(out.additionalProperties)) out.additionalProperties = closedBodySchema(out.additionalProperties, where);
  const isObjectSchema = out.type === 'object' || (Array.isArray(out.type) && out.type.includes('object')) || isObject(out.properties) || isObject(out.patternProperties);
  if (isObjectSchema && out.additionalProperties === undefined && out.unevaluatedProperties === undefined) out.additionalProperties = false;
  return out;
}

/** Closes the body schema of every route declared after this call (the whole app when called first). */
export function registerStrictBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const body = route.schema?.body;
    if (body === undefined) return;
    const where = `${[route.method].flat().join(',')} ${route.url}`;
    route.schema = { ...route.schema, body: closedBodySchema(body, where) };
  });
}

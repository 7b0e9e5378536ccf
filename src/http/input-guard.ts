import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidData, type FieldErrors } from './errors.js';

// D47: three properties hold for every value of every request, whatever its route schema says:
//
// - No NUL character in a string (or an object key). PostgreSQL cannot store U+0000 in text or
//   jsonb and fails the whole statement.
// - No lone surrogate (text that is not well-formed Unicode, e.g. the JSON escape "\ud800"):
//   PostgreSQL refuses it in jsonb (audit details, translations) and fails the whole statement.
// - No non-finite number. Ajv's type coercion turns the query or path text "Infinity" into
//   Infinity, and JSON.parse turns 1e400 into Infinity; Ajv then skips every numeric keyword
//   (minimum, maximum, format) for a non-finite value, so no schema can refuse it.
//
// The check runs once, after validation (values are coerced then) and before any handler.

const NUL_MESSAGE = 'must not contain the NUL character';
const NON_FINITE_MESSAGE = 'must be a finite number';
const ILL_FORMED_MESSAGE = 'must be well-formed Unicode text (no lone surrogate)';

// With the u flag a surrogate pair is one code point; only a lone surrogate is of category Cs.
const LONE_SURROGATE = /\p{Cs}/u;

/** Why a string (a value or an object key) cannot be stored, or null. */
function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return NUL_MESSAGE;
  if (LONE_SURROGATE.test(text)) return ILL_FORMED_MESSAGE;
  return null;
}

/** Records in `out` every field of `value` (under `field`) that breaks one of the rules. */
function inspect(value: unknown, field: string, out: FieldErrors, depth: number): void {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem) (out[field || 'body'] ??= []).push(problem);
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) (out[field || 'body'] ??= []).push(NON_FINITE_MESSAGE);
  } else if (value !== null && typeof value === 'object' && depth < 32) {
    for (const [key, child] of Object.entries(value)) {
      const path = field ? `${field}.${key}` : key;
      const problem = textProblem(key);
      if (problem) (out[path] ??= []).push(problem);
      inspect(child, path, out, depth + 1);
    }
  }
}

/** The fields of a request's path, query and body that no route may accept. */
function unsafeInputFields(request: Pick<FastifyRequest, 'params' | 'query' | 'body'>): FieldErrors {
  const out: FieldErrors = {};
  for (const part of [request.params, request.query, request.body]) inspect(part, '', out, 0);
  return out;
}

/**
 * Refuses, with 422 in the D4 envelope, a request holding a NUL character, a lone surrogate or a
 * non-finite number. A callback hook, not an async one: no promise per request.
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preHandler', (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    const fields = unsafeInputFields(request);
    done(Object.keys(fields).length > 0 ? invalidData(fields) : undefined);
  });
}

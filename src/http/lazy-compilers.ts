// Route schemas compiled on first use rather than at start (issue 19: a restart within 2 s).
//
// Fastify compiles every route's validators (Ajv) and response serialisers (fast-json-stringify)
// while the routes are declared: about a second of a start on the project's 2-core machine, for
// routes most processes never serve. These factories are Fastify's own defaults
// (`schemaController.compilersFactory`), with each compiled function deferred until its route's
// first request. Schemas, options and answers are unchanged; a schema that cannot compile now
// fails on its route's first request (test/http/lazy-compilers.test.ts compiles them all).
//
// Bodies are validated by an Ajv instance of their own, without type coercion nor the removal of
// unknown properties (D56, http/strict-bodies.ts); the query string and path parameters keep
// Fastify's options.
//
// Fastify treats a factory given here as custom: it passes a `headers` schema to Ajv as written,
// without lowercasing its property names. Our routes have no headers schema; one added must name
// its headers in lowercase.
import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';
import { BODY_AJV_OPTIONS } from './strict-bodies.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Compiles every route schema not compiled yet (createLazyCompilers); answers how many. */
    compileRouteSchemas(): number;
  }
}

type Validate = ((data: unknown, context?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
type Serialize = (doc: unknown) => string;
type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/**
 * Fastify's default compilers, each compiled function deferred to its first use; one per app (as
 * Fastify's own: an Ajv instance keeps what it compiled). `compileAll` compiles what is still
 * pending and answers how many it compiled.
 */
export function createLazyCompilers() {
  const pending = new Set<() => void>();
  /** A function that compiles on its first call, registered as pending until then. */
  const deferred = <F>(compile: () => F) => {
    let compiled: F | undefined;
    const force = () => {
      compiled ??= compile();
      pending.delete(force);
      return compiled;
    };
    pending.add(force);
    return () => compiled ?? force();
  };
  // The packages' own types differ from what Fastify passes (a route definition, not a schema):
  // both are used as Fastify calls them, without their types.
  const buildAjv = AjvCompiler() as unknown as (externalSchemas: unknown, options: unknown) => (route: unknown) => Validate;
  const buildFastJsonStringify = SerializerSelector() as unknown as (externalSchemas: unknown, options: unknown) => (route: unknown) => Serialize;
  const compilersFactory = {
    buildValidator(externalSchemas: unknown, ajvOptions: unknown) {
      const options = ajvOptions as { customOptions?: Record<string, unknown> };
      const compiler = buildAjv(externalSchemas, ajvOptions);
      const bodyCompiler = buildAjv(externalSchemas, { ...options, customOptions: { ...options.customOptions, ...BODY_AJV_OPTIONS } });
      return (route: unknown) => {
        const part = (route as { httpPart?: string }).httpPart;
        const real = deferred(() => (part === 'body' ? bodyCompiler : compiler)(route));
        const validate: Validate = (data, context) => {
          const fn = real();
          const valid = fn(data, context);
          // Fastify reads the errors of a failed validation from the function it called.
          validate.errors = fn.errors;
          return valid;
        };
        // Fastify passes the request as the root value's parent (so that Ajv may coerce or default
        // the root) only to a function with Ajv's `schemaEnv`; every function here is Ajv's.
        validate.schemaEnv = true;
        return validate;
      };
    },
    buildSerializer(externalSchemas: unknown, options: unknown) {
      const compiler = buildFastJsonStringify(externalSchemas, options);
      return (route: unknown) => {
        const real = deferred(() => compiler(route));
        return (doc: unknown) => real()(doc);
      };
    },
  };
  return {
    /** Fastify's `schemaController.compilersFactory`. */
    compilersFactory: compilersFactory as unknown as CompilersFactory,
    compileAll(): number {
      const all = [...pending];
      for (const force of all) force();
      return all.length;
    },
  };
}

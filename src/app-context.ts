import type { Config } from './config.js';
import type { Database, Db } from './db/client.js';
import type { Clock } from './lib/clock.js';

/**
 * What every service needs: configuration, the database and the clock. Built once per app by
 * `createAppContext` (buildApp, the CLI); services may pass copies (`{ ...ctx, db: tx }` inside a
 * transaction), and the copies share the app's singletons.
 */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
  /** The app's singletons by name (see `appSingleton`); one map per app, shared by copies. */
  readonly singletons: Map<string, unknown>;
}

export function createAppContext(opts: { config: Config; database: Database; clock: Clock }): AppContext {
  return { config: opts.config, database: opts.database, db: opts.database.db, clock: opts.clock, singletons: new Map() };
}

/**
 * Declares something an app holds once (a cache, a mail transport, the payment providers), created
 * on first use from the app's context. The owning module declares it next to its code; the value
 * lives in `ctx.singletons` under its name, so that every app (a test file may build several) has
 * its own and every copy of one app's context shares it.
 */
const declaredSingletons = new Set<string>();

export function appSingleton<T>(name: string, create: (ctx: AppContext) => T): (ctx: AppContext) => T {
  // Two declarations under one name would hand each other's values out.
  if (declaredSingletons.has(name)) throw new Error(`app singleton ${name} is declared twice`);
  declaredSingletons.add(name);
  return (ctx) => {
    if (ctx.singletons.has(name)) return ctx.singletons.get(name) as T;
    const value = create(ctx);
    ctx.singletons.set(name, value);
    return value;
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect, type PgDatabase, type PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema/index.js';
import { listenPglite, listenPostgres, type Listener, type NotificationHandlers } from './notifications.js';
import { lockDataDir } from './data-dir-lock.js';
import type { QueryConfig } from 'pg';

/** Drizzle database over either driver; a transaction has the same type, so repos take either. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Runs a multi-statement SQL script (migrations). */
  execScript(script: string): Promise<void>;
  ping(): Promise<boolean>;
  /** LISTENs for notifications on `channel` (src/db/notifications.ts) until the listener is closed. */
  listen(channel: string, handlers: NotificationHandlers): Promise<Listener>;
  /** Who hears that a pooled connection was lost (the pool replaces it); one handler, for logging. */
  onConnectionError(handler: (err: Error) => void): void;
  /** The PostgreSQL pool's connections now (metrics, overload); null for PGlite (one in-process connection). */
  poolStats(): PoolStats | null;
  close(): Promise<void>;
}

interface PoolStats {
  /** Connections open (idle or in use). */
  total: number;
  idle: number;
  /** Queries waiting for a connection: the pool is exhausted. */
  waiting: number;
}

export interface DatabaseOptions {
  /** postgres:// URL of a server; when absent the embedded PGlite is used. */
  url?: string;
  /** Folder of the embedded database; 'memory://' keeps it in memory (tests). */
  pgliteDir?: string;
  poolSize?: number;
  /** How long a request waits for a pooled connection before its 503 (default CONNECT_TIMEOUT_MS); PostgreSQL only. */
  connectTimeoutMs?: number;
  /** Who opens an embedded folder (`service`, `command line`): named to whoever is refused it (D48). */
  owner?: string;
  /** A tarball of a PGlite data folder (`dumpDataDir`) to start from: tests start from one migrated copy. */
  pgliteLoadDataDir?: Blob;
}

/** Opens the database named by the options: a PostgreSQL server pool or the embedded PGlite. */
export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.url) return openPostgres(opts.url, opts.poolSize ?? 10, opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
  return openPglite(opts.pgliteDir ?? 'memory://', opts.owner ?? 'service', opts.pgliteLoadDataDir);
}

/**
 * How long a request waits for a connection (a new one, or a free one from a full pool) before it
 * fails with 503: a database that does not answer must not hold requests forever (D46).
 */
const CONNECT_TIMEOUT_MS = 5_000;

async function openPostgres(url: string, poolSize: number, connectTimeoutMs: number): Promise<Database> {
  // Loaded here, not at the top: a start on the embedded database does without them (issue 19).
  const [{ default: pg }, { drizzle: drizzlePg }] = await Promise.all([import('pg'), import('drizzle-orm/node-postgres')]);
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: connectTimeoutMs });
  let reportError: (err: Error) => void = () => {};
  // A lost connection must never end the process (D46). The pool listens for errors of idle
  // clients only and stops while a client is checked out; a checked-out client whose server goes
  // away between two queries (a restart, a cut network) then emits 'error' with nobody listening,
  // which Node turns into an uncaught exception. So every client gets a listener of its own for
  // its whole life; the query in flight, if any, fails on its own and the pool drops the client.
  // The pool re-emits an idle client's error; it is reported once, by the client's own listener.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', (err) => reportError(err)));
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  // The hot statements of the pool itself (not of a transaction) go to pg directly (hotStatement).
  const types = { getTypeParser: (oid: number, format?: 'text' | 'binary') => (TEXT_TYPES.has(oid) ? asText : pg.types.getTypeParser(oid, format)) };
  hotDrivers.set(db, (name, text, values) => pool.query({ name, text, values, types } as QueryConfig) as Promise<{ rows: unknown[] }>);
  return {
    db,
    kind: 'postgres',
    async execScript(script) {
      const client = await pool.connect();
      try {
        await client.query(script);
      } catch (err) {
        // A failed script that opened a transaction leaves the connection aborted: close it here.
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async ping() {
      try {
        await pool.query('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
    listen: (channel, handlers) => listenPostgres(url, channel, handlers),
    onConnectionError(handler) {
      reportError = handler;
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}

async function openPglite(dir: string, owner: string, loadDataDir?: Blob): Promise<Database> {
  const inMemory = dir.startsWith('memory://');
  if (!inMemory) fs.mkdirSync(path.dirname(dir), { recursive: true });
  // Taken before PGlite touches the folder, so that a refused process has written nothing (D48).
  const lock = inMemory ? null : lockDataDir(dir, owner);
  let client: PGlite;
  try {
    client = await PGlite.create(dir, loadDataDir ? { loadDataDir } : {});
  } catch (err) {
    lock?.release();
    throw err;
  }
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    async execScript(script) {
      try {
        await client.exec(script);
      } catch (err) {
        await client.exec('ROLLBACK').catch(() => {});
        throw err;
      }
    },
    async ping() {
      try {
        await db.execute(sql`SELECT 1`);
        return true;
      } catch {
        return false;
      }
    },
    listen: (channel, handlers) => listenPglite(client, channel, handlers),
    // One in-process connection: nothing to lose.
    onConnectionError() {},
    poolStats: () => null,
    async close() {
      try {
        await client.close();
      } finally {
        lock?.release();
      }
    },
  };
}

/** Rows of a raw SQL query; both drivers answer with `{ rows }`. */
/** A json value as a driver returns it: node-postgres parses json columns, PGlite may hand back text. */
export type Json<T> = T | string;
export const parseJson = <T>(value: Json<T>): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

const dialect = new PgDialect();

/**
 * The type ids whose values drizzle's node-postgres driver leaves as the server's text (timestamps,
 * dates, intervals and their arrays): a hot statement sent to pg directly reads them the same way.
 */
const TEXT_TYPES = new Set([1184, 1114, 1082, 1186, 1231, 1115, 1185, 1187, 1182]);
const asText = (value: string) => value;

/**
 * A pool's own way to send a hot statement, without drizzle: keyed by the pool's Db, so that a
 * transaction's Db (which must use its own connection) never finds one and goes through drizzle.
 */
const hotDrivers = new WeakMap<Db, (name: string, text: string, values: unknown[]) => Promise<{ rows: unknown[] }>>();

/** A hot statement's parameter as the server reads it: an instant as ISO 8601 text (cheaper than pg's local-time formatting; every hot statement casts it to timestamptz). */
const hotParam = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/**
 * A hot statement of the purchase path (issue 27): a fixed text with `$n` parameters, sent as a
 * named prepared statement (each pooled connection parses it once) and without the query builder
 * (no SQL object built per call). For statements whose plan does not depend on the values: a
 * `SELECT f($1, ...)` of one of src/db/functions, or a lookup by a unique key; an instant parameter
 * must be cast to timestamptz. On a PostgreSQL pool it goes to pg itself (no prepared-query object,
 * tracing span or cache lookup of drizzle per call); inside a transaction, and on PGlite (which
 * ignores the name), through drizzle's session. Rows come back as drizzle's drivers give them
 * (timestamps as text on node-postgres).
 */
export function hotStatement<T>(name: string, text: string): (db: Db, params: readonly unknown[]) => Promise<T[]> {
  return async (db, params) => {
    const direct = hotDrivers.get(db);
    if (direct) return (await direct(name, text, params.map(hotParam))).rows as T[];
    const result = (await db._.session.prepareQuery({ sql: text, params: params as unknown[] }, undefined, name, false).execute()) as { rows: T[] };
    return result.rows;
  };
}

/**
 * Rows of a raw SQL query sent as a named prepared statement: on a PostgreSQL server each pooled
 * connection parses it once and, after five executions, may keep a generic plan, which saves
 * parsing and planning a large statement on every call. Only for statements whose best plan does
 * not depend on the parameter values (a generic plan does not know them). The name is derived from
 * the text, so that one name never stands for two texts; keep the number of distinct texts small
 * (every connection keeps each one). Rows come back as from `queryRows`; PGlite ignores the name.
 */
export async function queryRowsPrepared<T>(db: Db, prefix: string, query: SQL): Promise<T[]> {
  const q = dialect.sqlToQuery(query);
  const name = `${prefix}_${crypto.createHash('sha1').update(q.sql).digest('hex').slice(0, 16)}`;
  const result = (await db._.session.prepareQuery(q, undefined, name, false).execute()) as { rows: T[] };
  return result.rows;
}

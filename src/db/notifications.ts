import type { Client } from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';

// Database notifications (PostgreSQL LISTEN/NOTIFY; PGlite has the same through its `listen()`
// API): how one instance tells every other instance on the same database that something changed.
// A notification sent inside a transaction is delivered only when it commits, and not at all when
// it rolls back, so a listener never acts on a change that did not happen.

/** What a listener is told. */
export interface NotificationHandlers {
  /** A payload sent on the channel (by any instance, this one included). */
  onNotification(payload: string): void;
  /**
   * The listening connection was (re)established: notifications sent while it was down are lost,
   * so whatever they would have invalidated must be invalidated now. Also called on the first
   * connection.
   */
  onConnected(): void;
  /** The listening connection failed or was lost (it reconnects by itself); for logging. */
  onConnectionLost?(err: Error): void;
}

export interface Listener {
  close(): Promise<void>;
}

/**
 * Sends a notification through `db` (the database or a transaction: then it is delivered on commit
 * only). Typed structurally so that this module does not import the client that imports it.
 */
export async function notify(db: { execute(query: SQL): PromiseLike<unknown> }, channel: string, payload: string): Promise<void> {
  await db.execute(sql`SELECT pg_notify(${channel}, ${payload})`);
}

/** Backoff of the listener's reconnection attempts: 100 ms doubling up to 1 s, so it is back within 2 s of the database. */
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 1_000;
const CONNECT_TIMEOUT_MS = 5_000;
/** The listening connection's name in pg_stat_activity, one per channel: `taquilla-listener taquilla_revocations`. */
export const listenerApplicationName = (channel: string) => `taquilla-listener ${channel}`;

/**
 * LISTENs on a PostgreSQL server through a dedicated connection (a pooled one would be handed to
 * other queries and lose the LISTEN). The connection reconnects by itself with backoff for as long
 * as the listener is open; its errors never reach the process as an unhandled 'error' event.
 * Resolves once the first LISTEN is in place, or after the first failed attempt (it keeps trying).
 */
export async function listenPostgres(url: string, channel: string, handlers: NotificationHandlers): Promise<Listener> {
  // Loaded here: a start on the embedded database does without the driver (issue 19).
  const { default: pg } = await import('pg');
  let client: Client | null = null;
  let closed = false;
  let attempt = 0;
  let timer: NodeJS.Timeout | null = null;

  const lost = (c: Client, err: Error) => {
    if (client !== c) return; // a connection that never finished connecting, or already handled
    client = null;
    c.end().catch(() => {});
    handlers.onConnectionLost?.(err);
    scheduleReconnect();
  };

  const connect = async () => {
    // Named, so that an operator (and the tests) can tell it in pg_stat_activity.
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, application_name: listenerApplicationName(channel) });
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c, new Error('Connection terminated')));
    c.on('notification', (msg) => {
      if (msg.channel === channel) handlers.onNotification(msg.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      c.end().catch(() => {});
      throw err;
    }
    if (closed) {
      await c.end().catch(() => {});
      return;
    }
    client = c;
    attempt = 0;
    handlers.onConnected();
  };

  const tryConnect = async () => {
    try {
      await connect();
    } catch (err) {
      handlers.onConnectionLost?.(err as Error);
      scheduleReconnect();
    }
  };

  function scheduleReconnect() {
    if (closed || timer) return;
    const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** attempt);
    attempt++;
    timer = setTimeout(() => {
      timer = null;
      void tryConnect();
    }, delay);
    timer.unref();
  }

  await tryConnect();
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}

/**
 * LISTENs on the embedded PGlite. It is one process with one connection, so nothing is ever lost;
 * the same path as on a server keeps the notification code exercised by every PGlite test.
 */
export async function listenPglite(pglite: PGlite, channel: string, handlers: NotificationHandlers): Promise<Listener> {
  const unlisten = await pglite.listen(channel, (payload) => handlers.onNotification(payload));
  handlers.onConnected();
  return {
    async close() {
      // After the database was closed there is nothing left to unlisten from.
      if (!pglite.closed) await unlisten().catch(() => {});
    },
  };
}

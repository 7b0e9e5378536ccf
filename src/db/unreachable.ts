// Which errors mean "the database cannot be reached right now" (D46): the request did nothing
// wrong, the service is not broken, retrying shortly will work. They answer 503, never 500.

/** Network errors of a connection that was refused, reset or never completed. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server that is going away or not accepting: 57P01 admin_shutdown (a restart),
 * 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up), 53300 too_many_connections;
 * class 08 (connection exceptions) is matched by prefix.
 */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);

/** What node-postgres says when a connection ends under a query or cannot be had from the pool. */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'is not queryable',
];

interface UnreachableCause {
  code?: string;
  message: string;
}

/**
 * The driver's error when the error, or one it wraps (Drizzle wraps driver errors in `cause`),
 * says the database is unreachable rather than that the query was wrong; otherwise null. The cause
 * is what to log: Drizzle's own message repeats the query's parameters.
 */
export function unreachableCause(err: unknown): UnreachableCause | null {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    const text = typeof message === 'string' ? message : '';
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return { code, message: text };
    if (DRIVER_MESSAGES.some((m) => text.includes(m))) return { message: text };
    // AggregateError (a host name resolving to several addresses, all refused).
    const inner = (e as { errors?: unknown }).errors;
    const found = Array.isArray(inner) ? inner.map(unreachableCause).find(Boolean) : null;
    if (found) return found;
  }
  return null;
}

const TICKETS = '/api/tickets/';
const TICKET_CODE = /^(\/api\/tickets\/)[^/]+/;

/**
 * The request path as it may appear in logs. The query string can carry signatures and tokens,
 * and a ticket's code (in its download path) admits its holder at the door: neither is logged.
 */
export function logPath(url: string): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  // Every request is logged: only a ticket path pays for the replacement.
  return path.startsWith(TICKETS) ? path.replace(TICKET_CODE, '$1[redacted]') : path;
}


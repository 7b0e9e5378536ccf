/**
 * The request path as it may appear in logs. The query string can carry signatures and tokens,
 * and a ticket's code (in its download path) admits its holder at the door: neither is logged.
 */
export function logPath(url: string): string {
  return url.split('?')[0]!.replace(/^(\/api\/tickets\/)[^/]+/, '$1[redacted]');
}

/** An entity tag without its weak prefix (W/). */
const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

/**
 * Weak comparison (RFC 9110 13.1.2): W/ prefixes are ignored; "*" matches any version. A header that
 * is exactly the tag (what a poller sends back) matches at once; otherwise each listed tag is
 * compared, without a regular expression or a closure per request (the queue's status polls ask on
 * every poll).
 */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header === etag) return true;
  const bare = opaque(etag);
  for (const candidate of header.split(',')) {
    const tag = candidate.trim();
    if (tag === '*' || opaque(tag) === bare) return true;
  }
  return false;
}

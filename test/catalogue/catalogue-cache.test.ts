import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PayloadCache, type BuiltPayload } from '../../src/modules/catalogue/catalogue.cache.js';
import { etagMatches } from '../../src/http/etag.js';
import { preferredEncoding } from '../../src/modules/catalogue/catalogue.routes.js';
import { languageChain, pickByLanguage, translatedName } from '../../src/platform/i18n.js';

/** A builder whose answers the test controls; counts its calls and can be held open. */
function builder(initial: string) {
  let text = initial;
  let validUntil: Date | null = null;
  let gate: Promise<void> | null = null;
  const calls = { count: 0 };
  const build = async (): Promise<BuiltPayload<string>> => {
    calls.count++;
    const snapshot = text; // what the "database" said when the build read it
    if (gate) await gate;
    return { fingerprint: snapshot, render: () => JSON.stringify({ text: snapshot }), meta: 'meta', validUntil };
  };
  return {
    build,
    calls,
    set: (next: string) => (text = next),
    expireAt: (at: Date | null) => (validUntil = at),
    hold() {
      let release!: () => void;
      gate = new Promise((r) => (release = r));
      return () => {
        gate = null;
        release();
      };
    },
  };
}

const textOf = (entry: { version: { plain: Buffer } } | null) => JSON.parse(entry!.version.plain.toString()).text;

/** A cache (max age 1000) that built v1 at time 0, and a builder that now answers v2. */
async function builtThenChanged() {
  const cache = new PayloadCache<string>(1000);
  const b = builder('v1');
  await cache.get('7:es', 7, 0, b.build);
  b.set('v2');
  return { cache, b };
}

describe('PayloadCache', () => {
  it('builds once for concurrent misses and serves hits without building', async () => {
    const cache = new PayloadCache<string>(1000);
    const b = builder('v1');
    const release = b.hold();
    const all = Promise.all([1, 2, 3].map(() => cache.get('7:es', 7, 0, b.build)));
    release();
    const entries = await all;
    expect(b.calls.count).toBe(1);
    expect(new Set(entries.map((e) => e!.version)).size).toBe(1);
    await cache.get('7:es', 7, 10, b.build);
    expect(b.calls.count).toBe(1);
  });

  it('invalidation drops every language of the session, and only that session', async () => {
    const cache = new PayloadCache<string>(1000);
    const b = builder('v1');
    await cache.get('7:es', 7, 0, b.build);
    await cache.get('7:en', 7, 0, b.build);
    await cache.get('8:es', 8, 0, b.build);
    expect(cache.size).toBe(3);
    cache.invalidate([7]);
    expect(cache.size).toBe(1);
    b.set('v2');
    expect(textOf(await cache.get('7:es', 7, 1, b.build))).toBe('v2');
    expect(textOf(await cache.get('8:es', 8, 1, b.build))).toBe('v1');
  });

  it('a build that raced an invalidation serves its callers but is not kept', async () => {
    const cache = new PayloadCache<string>(1000);
    const b = builder('old');
    const release = b.hold();
    const racing = cache.get('7:es', 7, 0, b.build);
    await Promise.resolve();
    b.set('new');
    cache.invalidate([7]); // the write committed while the build was reading
    release();
    expect(textOf(await racing)).toBe('old');
    expect(cache.size).toBe(0);
    expect(textOf(await cache.get('7:es', 7, 1, b.build))).toBe('new');
  });

  it('expires after the max age, and at validUntil when that comes first', async () => {
    const { cache, b } = await builtThenChanged();
    expect(textOf(await cache.get('7:es', 7, 999, b.build))).toBe('v1');
    // 999 is in the refresh-ahead window: the background rebuild has stored v2 by now.
    await new Promise((r) => setImmediate(r));
    expect(textOf(await cache.get('7:es', 7, 999, b.build))).toBe('v2');

    const c = new PayloadCache<string>(1000);
    const d = builder('held');
    d.expireAt(new Date(300));
    await c.get('9:es', 9, 0, d.build);
    d.set('free');
    d.expireAt(null);
    expect(textOf(await c.get('9:es', 9, 299, d.build))).toBe('held');
    expect(textOf(await c.get('9:es', 9, 300, d.build))).toBe('free');
  });

  it('refreshes ahead in the last 15 % of the max age without making the caller wait', async () => {
    const { cache, b } = await builtThenChanged();
    const release = b.hold();
    expect(textOf(await cache.get('7:es', 7, 800, b.build))).toBe('v1'); // not yet in the window
    expect(b.calls.count).toBe(1);
    const served = await cache.get('7:es', 7, 900, b.build); // the rebuild is held open
    expect(textOf(served)).toBe('v1');
    expect(b.calls.count).toBe(2);
    await cache.get('7:es', 7, 950, b.build); // no second background rebuild while one runs
    expect(b.calls.count).toBe(2);
    release();
    await new Promise((r) => setImmediate(r));
    expect(textOf(await cache.get('7:es', 7, 960, b.build))).toBe('v2');
  });

  it('keeps the version (ETag, compressed bytes) when a rebuild has the same fingerprint', async () => {
    const cache = new PayloadCache<string>(1000);
    const b = builder('same');
    const first = await cache.get('7:es', 7, 0, b.build);
    const br = await first!.version.encode('br');
    cache.invalidate([7]);
    const second = await cache.get('7:es', 7, 1, b.build);
    expect(b.calls.count).toBe(2);
    expect(second!.version).toBe(first!.version);
    expect(await second!.version.encode('br')).toBe(br);
    expect(zlib.brotliDecompressSync(br).toString()).toBe(JSON.stringify({ text: 'same' }));
    b.set('different');
    cache.invalidate([7]);
    expect((await cache.get('7:es', 7, 2, b.build))!.version.etag).not.toBe(first!.version.etag);
  });

  it('holds at most maxEntries payloads', async () => {
    const cache = new PayloadCache<string>(1000, 3);
    const b = builder('x');
    for (const lang of ['a', 'b', 'c', 'd', 'e']) await cache.get(`7:${lang}`, 7, 0, b.build);
    expect(cache.size).toBe(3);
  });

  it('a builder that finds nothing is not cached', async () => {
    const cache = new PayloadCache<string>(1000);
    let calls = 0;
    const none = async () => {
      calls++;
      return null;
    };
    expect(await cache.get('7:es', 7, 0, none)).toBeNull();
    expect(await cache.get('7:es', 7, 0, none)).toBeNull();
    expect(calls).toBe(2);
  });
});

describe('HTTP negotiation helpers', () => {
  it('If-None-Match: weak comparison, lists and *', () => {
    expect(etagMatches('W/"abc"', 'W/"abc"')).toBe(true);
    expect(etagMatches('"abc"', 'W/"abc"')).toBe(true);
    expect(etagMatches('"x", W/"abc"', 'W/"abc"')).toBe(true);
    expect(etagMatches('*', 'W/"abc"')).toBe(true);
    expect(etagMatches('"abd"', 'W/"abc"')).toBe(false);
    expect(etagMatches(undefined, 'W/"abc"')).toBe(false);
  });

  it('Accept-Encoding: br preferred, q-values honoured', () => {
    expect(preferredEncoding('br, gzip')).toBe('br');
    expect(preferredEncoding('gzip, deflate')).toBe('gzip');
    expect(preferredEncoding('gzip;q=1, br;q=0.5')).toBe('gzip');
    expect(preferredEncoding('br;q=0, gzip')).toBe('gzip');
    expect(preferredEncoding('*')).toBe('br');
    expect(preferredEncoding('identity')).toBeNull();
    expect(preferredEncoding('gzip;q=0')).toBeNull();
    expect(preferredEncoding(undefined)).toBeNull();
  });
});

describe('language fallback', () => {
  it('requested, base, default, then any', () => {
    expect(languageChain('en-GB', 'es')).toEqual(['en-GB', 'en', 'es']);
    const names = new Map([
      ['es', 'Hola'],
      ['en', 'Hello'],
    ]);
    expect(pickByLanguage(names, languageChain('en-GB', 'es'))).toBe('Hello');
    expect(pickByLanguage(names, languageChain('fr', 'es'))).toBe('Hola');
    expect(pickByLanguage(new Map([['de', 'Hallo']]), languageChain('fr', 'es'))).toBe('Hallo');
    expect(translatedName('General', { en: 'General admission' }, ['fr', 'es'])).toBe('General');
    expect(translatedName('General', { en: 'General admission' }, ['en', 'es'])).toBe('General admission');
  });
});

// The scanner's service worker: the app shell (the page, its script, style, manifest and icons)
// is cached at install, so the scanner opens at the door with no network. The API is never cached:
// its answers must be the server's of the moment, and offline the app decides by itself.
// The build replaces SHELL and VERSION (checkin/vite.config.ts); a new build is a new worker,
// which takes over at once and drops the old cache.

interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(response: Promise<Response>): void;
}
interface WorkerScope {
  addEventListener(type: 'install' | 'activate', fn: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', fn: (event: FetchEvent) => void): void;
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  location: Location;
}

const scope = self as unknown as WorkerScope;
const SHELL: string[] = ['__CHECKIN_SHELL__'];
const CACHE = 'checkin-__CHECKIN_VERSION__';
const INDEX = '/checkin/';

scope.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => scope.skipWaiting()),
  );
});

scope.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith('checkin-') && n !== CACHE).map((n) => caches.delete(n))))
      .then(() => scope.clients.claim()),
  );
});

scope.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== scope.location.origin || !url.pathname.startsWith('/checkin/')) return;
  // Every page address of the scanner (with a #setup=, a query) is the one cached page.
  const key = request.mode === 'navigate' ? INDEX : url.pathname;
  event.respondWith(
    caches.match(key, { cacheName: CACHE, ignoreSearch: true }).then((hit) => hit ?? fetch(request)),
  );
});

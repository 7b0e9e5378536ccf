import { render } from 'preact';
import { browserLang, LANGS, type Lang } from './i18n.js';
import { Scanner } from './scanner.js';
import { ScannerStore } from './store.js';
import { App } from './ui/App.js';
import './styles.css';

// The scanner web app at /checkin (docs/checkin-scanner.md): set-up, scanning, offline sync.

const SYNC_EVERY_MS = 30_000;

async function start() {
  if ('serviceWorker' in navigator) {
    // The app shell from the cache: the scanner opens with no network.
    navigator.serviceWorker.register('/checkin/sw.js', { scope: '/checkin/' }).catch(() => undefined);
  }
  const store = await ScannerStore.open();
  const stored = await store.get('lang');
  const lang: Lang = stored && (LANGS as readonly string[]).includes(stored) ? (stored as Lang) : browserLang(navigator.languages ?? [navigator.language]);
  const scanner = new Scanner(store);
  render(<App scanner={scanner} initialLang={lang} saveLang={(l) => void store.set('lang', l)} />, document.getElementById('app')!);
  const hash = location.hash;
  // The token leaves the address bar (and the history) at once.
  if (hash.includes('setup=')) history.replaceState(null, '', location.pathname + location.search);
  await scanner.init(hash);
  window.addEventListener('online', () => scanner.setOnline(true));
  window.addEventListener('offline', () => scanner.setOnline(false));
  window.addEventListener('hashchange', () => {
    if (location.hash.includes('setup=')) {
      const h = location.hash;
      history.replaceState(null, '', location.pathname + location.search);
      void scanner.setup(h);
    }
  });
  setInterval(() => void scanner.sync(), SYNC_EVERY_MS);
  // The browser test and the bench drive the same instance the UI shows.
  (window as { __scanner?: Scanner }).__scanner = scanner;
}

void start();

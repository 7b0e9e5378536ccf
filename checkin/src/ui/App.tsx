import { useEffect, useRef, useState } from 'preact/hooks';
import { startCamera, type CameraScan } from '../camera.js';
import { signal, tone } from '../feedback.js';
import { formatMoment } from '../format.js';
import { TEXTS, type Lang } from '../i18n.js';
import type { Answer, Scanner } from '../scanner.js';
import type { TicketView } from '../types.js';

type T = (typeof TEXTS)[Lang];

/** Re-renders on every change of the scanner's state. */
function useScanner(scanner: Scanner) {
  const [seen, setSeen] = useState(scanner.state);
  useEffect(() => {
    const unsubscribe = scanner.subscribe(() => setSeen(scanner.state));
    // Effects run after paint: a change made before we subscribed must not be missed.
    setSeen(scanner.state);
    return unsubscribe;
  }, [scanner]);
  return seen === scanner.state ? seen : scanner.state;
}

/** A time the staff read, in the deployment's zone (GET /device `time_zone`). */
const when = (iso: string | undefined, lang: Lang, t: T, timeZone: string | undefined) => (iso ? formatMoment(iso, lang, timeZone) : t.never);

/** The camera, on while it is shown; every code it reads goes to `onCode`. */
function Camera({ onCode, t, onStop }: { onCode: (code: string) => void; t: T; onStop: () => void }) {
  const video = useRef<HTMLVideoElement>(null);
  const [error, setError] = useState(false);
  const [decoder, setDecoder] = useState('');
  const handler = useRef(onCode);
  handler.current = onCode;
  useEffect(() => {
    let cam: CameraScan | null = null;
    let cancelled = false;
    startCamera(video.current!, (code) => handler.current(code))
      .then((c) => {
        if (cancelled) c.stop();
        else {
          cam = c;
          setDecoder(c.decoder);
        }
      })
      .catch(() => setError(true));
    return () => {
      cancelled = true;
      cam?.stop();
    };
  }, []);
  return (
    <div class="camera" data-decoder={decoder}>
      <video ref={video} muted playsInline aria-label={t.camera} />
      {error && <p class="problem" role="status">{t.cameraError}</p>}
      <button type="button" class="secondary" onClick={onStop}>
        {t.cameraStop}
      </button>
    </div>
  );
}

/** The camera while `on` (its stop button turns it off), else the button labelled `label` that starts it. */
function CameraOrStart({ on, setOn, label, t, onCode }: { on: boolean; setOn: (on: boolean) => void; label: string; t: T; onCode: (code: string) => void }) {
  return on ? (
    <Camera t={t} onCode={onCode} onStop={() => setOn(false)} />
  ) : (
    <button type="button" class="primary" onClick={() => setOn(true)}>
      {label}
    </button>
  );
}

function TicketLines({ ticket, t }: { ticket: TicketView; t: T }) {
  const place = [ticket.sector, ticket.row && `${t.row} ${ticket.row}`, ticket.seat && `${t.seat} ${ticket.seat}`, ticket.zone && `${t.zone} ${ticket.zone}`]
    .filter(Boolean)
    .join(' · ');
  return (
    <dl class="ticket">
      {ticket.event_name && <dd class="event">{ticket.event_name}</dd>}
      {place && <dd data-place>{place}</dd>}
      {ticket.rate && (
        <dd>
          {t.rate}: {ticket.rate}
        </dd>
      )}
      {ticket.buyer_name && (
        <dd data-buyer>
          {t.buyer}: <strong>{ticket.buyer_name}</strong>
        </dd>
      )}
    </dl>
  );
}

function AnswerScreen({ answer, t, lang, timeZone, onDismiss }: { answer: Answer; t: T; lang: Lang; timeZone: string | undefined; onDismiss: () => void }) {
  return (
    <div class={`answer ${tone(answer.result)}`} role="alert" data-result={answer.result} onClick={onDismiss}>
      <p class="verdict">{t.result[answer.result]}</p>
      <p class="reason">{t.reason[answer.reason]}</p>
      {answer.first_scan && (
        <p class="first" data-first-scan={answer.first_scan.scanned_at}>
          {t.firstScan}: <strong>{when(answer.first_scan.scanned_at, lang, t, timeZone)}</strong>
          {answer.first_scan.device_name ? ` · ${answer.first_scan.device_name}` : ''}
        </p>
      )}
      {answer.ticket && <TicketLines ticket={answer.ticket} t={t} />}
      {answer.offline && <p class="tag">{t.offlineAnswer}</p>}
      <button type="button" class="continue" onClick={onDismiss} autoFocus>
        {t.tapToContinue}
      </button>
    </div>
  );
}

function LangSwitch({ lang, setLang, t }: { lang: Lang; setLang: (l: Lang) => void; t: T }) {
  const other: Lang = lang === 'es' ? 'en' : 'es';
  return (
    <button type="button" class="lang" aria-label={`${t.language}: ${other === 'es' ? 'Español' : 'English'}`} lang={other} onClick={() => setLang(other)}>
      {other.toUpperCase()}
    </button>
  );
}

function Setup({ scanner, t, lang, setLang }: { scanner: Scanner; t: T; lang: Lang; setLang: (l: Lang) => void }) {
  const state = useScanner(scanner);
  const [camera, setCamera] = useState(false);
  const [text, setText] = useState('');
  const submit = (value: string) => {
    setCamera(false);
    void scanner.setup(value);
  };
  return (
    <main class="setup">
      <header class="bar">
        <h1>{t.title}</h1>
        <LangSwitch lang={lang} setLang={setLang} t={t} />
      </header>
      <section class="card">
        <h2>{t.setupTitle}</h2>
        <p>{t.setupHelp}</p>
        {state.problem && (
          <p class="problem" role="status">
            {t.problem[state.problem]}
          </p>
        )}
        <CameraOrStart on={camera} setOn={setCamera} label={t.setupScan} t={t} onCode={submit} />
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit(text);
          }}
        >
          <label for="setup-code">{t.setupField}</label>
          <input id="setup-code" value={text} onInput={(e) => setText(e.currentTarget.value)} autocomplete="off" autocapitalize="off" spellcheck={false} />
          <button type="submit" class="secondary">
            {t.setupSubmit}
          </button>
        </form>
      </section>
    </main>
  );
}

const isField = (el: Element | null) => !!el && ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName);

function Main({ scanner, t, lang, setLang }: { scanner: Scanner; t: T; lang: Lang; setLang: (l: Lang) => void }) {
  const state = useScanner(scanner);
  const zone = state.device?.time_zone;
  const [camera, setCamera] = useState(false);
  const [code, setCode] = useState('');
  const list = scanner.list();
  const scan = (text: string) => {
    void scanner.scan(text).then((answer) => answer && signal(answer.result));
  };
  const scanRef = useRef(scan);
  scanRef.current = scan;

  // A hardware scanner types the code and Enter wherever the focus is: outside the fields its keys
  // are collected here (a pause of a second starts a new code).
  useEffect(() => {
    let buffer = '';
    let last = 0;
    const onKey = (e: KeyboardEvent) => {
      if (isField(document.activeElement) || e.ctrlKey || e.metaKey || e.altKey) return;
      const now = Date.now();
      if (now - last > 1000) buffer = '';
      last = now;
      if (e.key === 'Enter') {
        if (buffer) {
          e.preventDefault();
          scanRef.current(buffer);
        } else if (scanner.state.answer) scanner.dismiss();
        buffer = '';
      } else if (e.key.length === 1) {
        if (scanner.state.answer && !buffer) scanner.dismiss();
        buffer += e.key;
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [scanner]);

  const status = state.status;
  return (
    <main class="main">
      <header class="bar">
        <div>
          <h1>{t.title}</h1>
          <p class="gate" data-gate>
            {t.gate}: <strong>{state.device?.device.name}</strong>
          </p>
        </div>
        <span class={`net ${state.online ? 'on' : 'off'}`} role="status" data-online={String(state.online)}>
          {state.syncing ? t.syncing : state.online ? t.online : t.offline}
        </span>
        <LangSwitch lang={lang} setLang={setLang} t={t} />
      </header>
      {state.problem && (
        <p class="problem" role="status">
          {t.problem[state.problem]}
        </p>
      )}
      <section class="card scan">
        {(state.device?.lists.length ?? 0) > 1 ? (
          <label class="list">
            {t.list}
            <select value={state.listId} onChange={(e) => void scanner.selectList(e.currentTarget.value)}>
              {state.device!.lists.map((l) => (
                <option value={String(l.id)}>{l.name}</option>
              ))}
            </select>
          </label>
        ) : (
          <p class="list">
            {t.list}: <strong>{list?.name}</strong>
          </p>
        )}
        {list?.allow_reentry && (
          <div class="direction" role="group">
            {(['entry', 'exit'] as const).map((d) => (
              <button type="button" aria-pressed={state.direction === d} onClick={() => void scanner.setDirection(d)}>
                {t[d]}
              </button>
            ))}
          </div>
        )}
        <CameraOrStart on={camera} setOn={setCamera} label={t.camera} t={t} onCode={scan} />
        <form
          class="code"
          onSubmit={(e) => {
            e.preventDefault();
            scan(code);
            setCode('');
          }}
        >
          <label for="code">{t.codeField}</label>
          <div class="row">
            <input id="code" value={code} onInput={(e) => setCode(e.currentTarget.value)} autocomplete="off" autocapitalize="off" spellcheck={false} enterkeyhint="go" />
            <button type="submit" class="secondary">
              {t.check}
            </button>
          </div>
        </form>
      </section>
      <section class="card counts">
        <p>
          {t.entriesHere}: <strong data-entries>{state.entries}</strong>
        </p>
        {status && (
          <>
            <p>
              {t.checkedIn}: <strong data-checked-in>{status.checked_in}</strong> / {status.sold}
            </p>
            <details>
              <summary>{t.perGate}</summary>
              <ul>
                {status.per_device.map((d) => (
                  <li>
                    {d.device_name}: {d.entries}
                  </li>
                ))}
              </ul>
            </details>
          </>
        )}
        <p class="small">
          <span data-tickets>{state.tickets}</span> {t.tickets} · <span data-pending>{state.pending}</span> {t.pending}
        </p>
        <p class="small" data-last-sync>
          {t.lastSync}: {when(state.lastSync, lang, t, zone)}
        </p>
        <button type="button" class="secondary" disabled={!state.online || state.syncing} onClick={() => void scanner.sync()}>
          {t.syncNow}
        </button>
      </section>
      {state.conflicts.length > 0 && (
        <section class="card conflicts" data-conflicts>
          <h2>{t.conflicts}</h2>
          <ul>
            {state.conflicts.map((c) => (
              <li>
                {when(c.scanned_at, lang, t, zone)}:{' '}
                {t.conflictLine.replace('{local}', t.result[c.result]).replace('{server}', t.result[c.server_result!])}
                {c.server_first_scan ? ` (${t.firstScan}: ${when(c.server_first_scan.scanned_at, lang, t, zone)})` : ''}
              </li>
            ))}
          </ul>
        </section>
      )}
      <footer>
        <button
          type="button"
          class="link"
          disabled={state.pending > 0}
          onClick={() => {
            location.hash = '';
            void scanner.store.reset().then(() => location.reload());
          }}
        >
          {t.newSetup}
        </button>
      </footer>
      {state.answer && <AnswerScreen answer={state.answer} t={t} lang={lang} timeZone={zone} onDismiss={() => scanner.dismiss()} />}
    </main>
  );
}

export function App({ scanner, initialLang, saveLang }: { scanner: Scanner; initialLang: Lang; saveLang: (l: Lang) => void }) {
  const state = useScanner(scanner);
  const [lang, setLangState] = useState(initialLang);
  const setLang = (l: Lang) => {
    setLangState(l);
    saveLang(l);
  };
  useEffect(() => {
    document.documentElement.lang = lang;
    document.title = TEXTS[lang].title;
  }, [lang]);
  const t = TEXTS[lang];
  if (state.phase === 'loading') return <main class="loading" aria-busy="true" />;
  if (state.phase === 'setup') return <Setup scanner={scanner} t={t} lang={lang} setLang={setLang} />;
  return <Main scanner={scanner} t={t} lang={lang} setLang={setLang} />;
}

import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Actor } from '../../../../platform/actor.js';

// The dashboard's pages are Preact components rendered to a string on the server, as the portal's
// and the e-mails are: every text and attribute is escaped by construction, and the pages work
// without scripts (admin.js only fills and copies text boxes).

export interface PageContext {
  actor: Actor;
  /** A promoter's organiser, by name. */
  organiserName?: string | null;
  csrfToken: string;
  /** Which main section is open, for aria-current. */
  section: 'channels' | 'events' | 'vouchers' | 'orders' | 'audit' | 'checkin' | 'sales' | 'privacy' | 'venues' | 'organisers' | 'accounts' | 'tokens';
  notice?: string | null;
  /** The deployment's time zone (TIMEZONE): times are shown in it, as on the tickets (issue 16). */
  timeZone: string;
}

/** The main navigation; the fourth element marks pages only admins may open (D65). */
const NAV: [PageContext['section'], string, string, boolean?][] = [
  ['organisers', '/admin/organisers', 'Organisers', true],
  ['accounts', '/admin/accounts', 'Accounts'],
  ['tokens', '/admin/tokens', 'API tokens'],
  ['venues', '/admin/venues', 'Venues'],
  ['channels', '/admin/channels', 'Channels'],
  ['events', '/admin/events', 'Events'],
  ['vouchers', '/admin/vouchers', 'Vouchers'],
  ['orders', '/admin/orders', 'Orders'],
  ['audit', '/admin/audit', 'Audit log'],
  ['checkin', '/admin/checkin', 'Check-in'],
  ['sales', '/admin/sales', 'Sales'],
  ['privacy', '/admin/privacy', 'Personal data'],
];

/** A whole page (a Document) as the HTML the dashboard sends. */
export const renderDocument = (document: VNode): string => `<!doctype html>\n${renderToString(document)}`;

function Document({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Taquilla admin`}</title>
        <link rel="stylesheet" href="/admin/assets/admin.css" />
        <script src="/admin/assets/admin.js" defer />
      </head>
      <body>{children}</body>
    </html>
  );
}

/** The synchronizer token every state-changing form of a session carries. */
export const Csrf = ({ pc }: { pc: { csrfToken: string } }) => <input type="hidden" name="_csrf" value={pc.csrfToken} />;

/** A signed-in page: skip link, header with navigation, main landmark. */
export function Page({ pc, title, children }: { pc: PageContext; title: string; children?: ComponentChildren }) {
  const who = pc.actor.role === 'admin' ? 'admin' : `promoter of ${pc.organiserName ?? `organiser ${pc.actor.organiserId}`}`;
  return (
    <Document title={title}>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <a class="brand" href="/admin/channels">Taquilla admin</a>
        <nav aria-label="Main">
          <ul>
            {NAV.filter(([, , , adminOnly]) => !adminOnly || pc.actor.role === 'admin').map(([key, href, label]) => (
              <li>
                <a href={href} aria-current={key === pc.section ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>{`${pc.actor.email} (${who})`}</span>
          <form class="inline" method="post" action="/admin/logout">
            <Csrf pc={pc} />
            <button type="submit">Sign out</button>
          </form>
        </div>
      </header>
      <main id="main" tabindex={-1}>
        <h1>{title}</h1>
        {pc.notice ? (
          <p class="notice" role="status">
            {pc.notice}
          </p>
        ) : null}
        {children}
      </main>
    </Document>
  );
}

/** The login page (no session yet). */
export function LoginPage({ loginCsrf, error, email = '' }: { loginCsrf: string; error: string | null; email?: string }) {
  return (
    <Document title="Sign in">
      <main id="main" class="login">
        <h1>Taquilla admin</h1>
        {error ? (
          <p class="error" role="alert" id="login-error">
            {error}
          </p>
        ) : null}
        <form method="post" action="/admin/login">
          <input type="hidden" name="_csrf" value={loginCsrf} />
          <div class="field">
            <label for="email">E-mail</label>
            <input id="email" name="email" type="email" autocomplete="username" required value={email} aria-describedby={error ? 'login-error' : undefined} />
          </div>
          <div class="field">
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required />
          </div>
          <button type="submit">Sign in</button>
        </form>
      </main>
    </Document>
  );
}

/** A page for someone not signed in (an invitation link): no navigation. */
export function PublicPage({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <Document title={title}>
      <main id="main" class="login">
        <h1>{title}</h1>
        {children}
      </main>
    </Document>
  );
}

/** An error page of a signed-in user (bad input, not found, ...), or of nobody signed in (`pc` null). */
export function ErrorPage({ pc, status, message, fields, back }: { pc: PageContext | null; status: number; message: string; fields: Record<string, string[]> | undefined; back: string }) {
  const body = (
    <>
      <div class="error" role="alert">
        <p>{message}</p>
        {fields ? (
          <ul>
            {Object.entries(fields).map(([f, texts]) => (
              <li>
                <strong>{f}</strong>: {texts.join(', ')}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      <p>
        <a href={back}>Go back</a>
      </p>
    </>
  );
  const title = status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : 'Something is not right';
  if (pc) {
    return (
      <Page pc={pc} title={title}>
        {body}
      </Page>
    );
  }
  return (
    <Document title={title}>
      <main id="main">
        <h1>{title}</h1>
        {body}
      </main>
    </Document>
  );
}

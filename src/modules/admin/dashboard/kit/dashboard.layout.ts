import type { Actor } from '../../../../platform/actor.js';
import { html, type SafeHtml } from './dashboard.html.js';

export interface PageContext {
  actor: Actor;
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

function document(title: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Taquilla admin</title>
<link rel="stylesheet" href="/admin/assets/admin.css">
<script src="/admin/assets/admin.js" defer></script>
</head>
<body>
${body}
</body>
</html>`;
}

/** A signed-in page: skip link, header with navigation, main landmark. */
export function page(pc: PageContext, title: string, content: SafeHtml): SafeHtml {
  const who = pc.actor.role === 'admin' ? 'admin' : `promoter of organiser ${pc.actor.organiserId}`;
  return document(
    title,
    html`<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/admin/channels">Taquilla admin</a>
  <nav aria-label="Main"><ul>
    ${NAV.filter(([, , , adminOnly]) => !adminOnly || pc.actor.role === 'admin').map(([key, href, label]) => html`<li><a href="${href}"${key === pc.section ? html` aria-current="page"` : ''}>${label}</a></li>`)}
  </ul></nav>
  <div class="who"><span>${pc.actor.email} (${who})</span>
    <form class="inline" method="post" action="/admin/logout">${csrf(pc)}<button type="submit">Sign out</button></form>
  </div>
</header>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${pc.notice ? html`<p class="notice" role="status">${pc.notice}</p>` : ''}
${content}
</main>`,
  );
}

/** The login page (no session yet). */
export function loginPage(loginCsrf: string, error: string | null, email = ''): SafeHtml {
  return document(
    'Sign in',
    html`<main id="main" class="login">
<h1>Taquilla admin</h1>
${error ? html`<p class="error" role="alert" id="login-error">${error}</p>` : ''}
<form method="post" action="/admin/login">
  <input type="hidden" name="_csrf" value="${loginCsrf}">
  <div class="field"><label for="email">E-mail</label>
    <input id="email" name="email" type="email" autocomplete="username" required value="${email}"${error ? html` aria-describedby="login-error"` : ''}></div>
  <div class="field"><label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required></div>
  <button type="submit">Sign in</button>
</form>
</main>`,
  );
}

/** A page for someone not signed in (an invitation link): no navigation. */
export function publicPage(title: string, content: SafeHtml): SafeHtml {
  return document(title, html`<main id="main" class="login">
<h1>${title}</h1>
${content}
</main>`);
}

/** An error page of a signed-in user (bad input, not found, ...). */
export function errorPage(pc: PageContext | null, status: number, message: string, fields: Record<string, string[]> | undefined, back: string): SafeHtml {
  const body = html`<div class="error" role="alert">
  <p>${message}</p>
  ${fields ? html`<ul>${Object.entries(fields).map(([f, texts]) => html`<li><strong>${f}</strong>: ${texts.join(', ')}</li>`)}</ul>` : ''}
</div>
<p><a href="${back}">Go back</a></p>`;
  const title = status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : 'Something is not right';
  return pc ? page(pc, title, body) : document(title, html`<main id="main"><h1>${title}</h1>${body}</main>`);
}

export const csrf = (pc: { csrfToken: string }) => html`<input type="hidden" name="_csrf" value="${pc.csrfToken}">`;

interface FieldOptions {
  type?: string;
  value?: string | number | null;
  required?: boolean;
  hint?: string;
  wide?: boolean;
  attrs?: SafeHtml;
  /** Messages shown under the field (a refused form shown again), announced with the field. */
  errors?: string[];
}

let fieldCounter = 0;

/** The error paragraph of a field and the attributes that tie it to the control. */
function fieldErrors(id: string, hintId: string | null, errors: string[] | undefined) {
  const errorId = errors?.length ? `${id}-error` : null;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ');
  return {
    attrs: html`${describedBy ? html` aria-describedby="${describedBy}"` : ''}${errorId ? html` aria-invalid="true"` : ''}`,
    message: errorId ? html`<p class="field-error" id="${errorId}">${errors!.join('; ')}</p>` : '',
  };
}

/** A labelled input; ids are unique per render so one page can hold several forms. */
export function field(name: string, label: string, opts: FieldOptions = {}): SafeHtml {
  const id = `f-${name}-${++fieldCounter}`;
  const hintId = opts.hint ? `${id}-hint` : null;
  const err = fieldErrors(id, hintId, opts.errors);
  return html`<div class="field${opts.wide ? ' wide' : ''}"><label for="${id}">${label}${hintId ? html` <span class="hint" id="${hintId}">${opts.hint}</span>` : ''}</label>
  <input id="${id}" name="${name}" type="${opts.type ?? 'text'}" value="${opts.value ?? ''}"${opts.required ? html` required` : ''}${err.attrs}${opts.attrs ?? ''}>${err.message}</div>`;
}

/** A labelled multi-line text box (same options as `field`; `value` is its text). */
export function textArea(name: string, label: string, opts: FieldOptions & { rows?: number; id?: string } = {}): SafeHtml {
  const id = opts.id ?? `f-${name}-${++fieldCounter}`;
  const hintId = opts.hint ? `${id}-hint` : null;
  const err = fieldErrors(id, hintId, opts.errors);
  return html`<div class="field${opts.wide ? ' wide' : ''}"><label for="${id}">${label}${hintId ? html` <span class="hint" id="${hintId}">${opts.hint}</span>` : ''}</label>
  <textarea id="${id}" name="${name}" rows="${opts.rows ?? 8}"${opts.required ? html` required` : ''}${err.attrs}${opts.attrs ?? ''}>${opts.value ?? ''}</textarea>${err.message}</div>`;
}

export function select(name: string, label: string, options: [string | number, string][], selected?: string | number | null, errors?: string[]): SafeHtml {
  const id = `f-${name}-${++fieldCounter}`;
  const err = fieldErrors(id, null, errors);
  return html`<div class="field"><label for="${id}">${label}</label>
  <select id="${id}" name="${name}"${err.attrs}>${options.map(([value, text]) => html`<option value="${value}"${String(value) === String(selected ?? '') ? html` selected` : ''}>${text}</option>`)}</select>${err.message}</div>`;
}

export function checkboxes(name: string, legend: string, options: [number, string][], checked: number[]): SafeHtml {
  return html`<fieldset class="field wide"><legend>${legend}</legend>
  ${options.length ? '' : html`<p class="hint">None yet.</p>`}
  ${options.map(([value, text]) => html`<label><input type="checkbox" name="${name}" value="${value}"${checked.includes(value) ? html` checked` : ''}> ${text}</label>`)}
  </fieldset>`;
}

/** A form with one button that POSTs to `action` (publish, revoke, delete...). */
export function actionButton(pc: PageContext, action: string, label: string, cls = 'secondary', accessibleName?: string): SafeHtml {
  return html`<form class="inline" method="post" action="${action}">${csrf(pc)}<button type="submit" class="${cls}"${accessibleName ? html` aria-label="${accessibleName}"` : ''}>${label}</button></form>`;
}

/**
 * A table that scrolls inside its own box on a narrow screen (the page never scrolls sideways).
 * The box is a named region in the tab order, so that keyboard users can scroll it too (WCAG 2.1.1).
 */
export const table = (head: string[], rows: SafeHtml[], caption?: string) =>
  html`<div class="table-wrap" role="region" tabindex="0" aria-label="${caption ?? 'Table'}"><table>${caption ? html`<caption class="hint">${caption}</caption>` : ''}<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
  <tbody>${rows.length ? rows : html`<tr><td colspan="${head.length}">Nothing yet.</td></tr>`}</tbody></table></div>`;

/** ISO timestamp to the value of a datetime-local input (UTC). */
export const localInput = (iso: string | null) => (iso ? iso.slice(0, 16) : '');
const zoneFormats = new Map<string, Intl.DateTimeFormat>();
/**
 * A short readable time in the deployment's zone, as the portal, the tickets and the e-mail write
 * it: "2026-12-24 20:00 CET" (sv-SE writes dates as YYYY-MM-DD).
 */
export const when = (iso: string | null, timeZone: string) => {
  if (!iso) return '';
  let f = zoneFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('sv-SE', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' });
    zoneFormats.set(timeZone, f);
  }
  return f.format(new Date(iso));
};

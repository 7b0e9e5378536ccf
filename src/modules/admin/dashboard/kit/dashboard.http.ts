import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../../http/errors.js';
import type { AppContext } from '../../../../app-context.js';
import { organiserScope, type Actor } from '../../../../platform/actor.js';
import { listOrganisers } from '../../../../platform/organisers.repo.js';
import { isValidElement, type VNode } from 'preact';
import * as F from './dashboard.form.js';
import { renderDocument, type PageContext } from './dashboard.page.js';

// Request helpers shared by the dashboard's route files: the shell's (modules/admin/dashboard) and
// each module's own pages (<module>.dashboard.tsx), which import this kit and nothing else of admin.

/** The dashboard session cookie (Path=/admin, HttpOnly, SameSite=Lax; docs/admin.md). */
export const SESSION_COOKIE = 'taquilla_admin';

interface DashboardSession {
  actor: Actor;
  csrfToken: string;
  sessionId: string;
  /** A promoter's organiser, named in the page header. */
  organiserName: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboard: DashboardSession | null;
  }
  interface FastifyContextConfig {
    /** Dashboard route reachable without a session (login, assets). */
    publicPage?: boolean;
  }
}

/** The confirmations a page shows after a form's redirect (`?notice=`), by name. */
const NOTICES = {
  created: 'Created.',
  saved: 'Saved.',
  published: 'Published.',
  revoked: 'Widget key revoked: its tokens no longer work.',
  deleted: 'Deleted.',
  refunded: 'Order refunded: its seats are free again and its tickets void.',
  device_revoked: 'Device revoked: its next scan is refused.',
  redelivered: 'Sent again: the new attempt is at the end of its delivery\'s list.',
  resent: 'Ticket e-mail queued: it goes out within seconds.',
  disabled: 'Account disabled: it can no longer sign in, and its sessions and API tokens stop at once.',
  enabled: 'Account enabled.',
  token_revoked: 'Token revoked: it no longer works on the admin API.',
  welcome: 'Welcome: your password is set and you are signed in.',
  layout_saved: 'Layout version saved: the venue\'s upcoming sessions use it now.',
  rates_copied: 'Rates copied.',
  rates_none: 'Nothing copied: this session has a rate of each of those names already.',
  series: 'Sessions created as drafts, with the copied rates; put each on sale from its page.',
  cancelled: 'Session cancelled: it sells no more, its live carts are ended and its channels are told.',
  cancelled_refunds_failed: 'Session cancelled, but some refunds failed: cancel it again to retry them.',
} as const satisfies Record<string, string>;

/** A notice a page can show: redirectWithNotice takes no other name. */
export type Notice = keyof typeof NOTICES;

/** What every page needs from the request. */
export function pageContext(request: FastifyRequest, section: PageContext['section']): PageContext {
  const { notice } = request.query as { notice?: string };
  const s = request.dashboard!;
  return { actor: s.actor, organiserName: s.organiserName, csrfToken: s.csrfToken, section, notice: notice && Object.hasOwn(NOTICES, notice) ? NOTICES[notice as Notice] : null, timeZone: request.server.ctx.config.timezone };
}

/** Who made the request: every dashboard route but sign-in runs behind the shell's session hook, which sets it. */
export const actorOf = (request: FastifyRequest): Actor => request.dashboard!.actor;

/** A whole page (<Page>, <PublicPage>...) as the reply. */
export const sendPage = (reply: FastifyReply, page: VNode, status = 200) => reply.status(status).type('text/html; charset=utf-8').send(renderDocument(page));
export const redirect = (reply: FastifyReply, to: string) => reply.redirect(to, 303);
/** The redirect after a form, to a page that shows `notice` (a path without a query). */
export const redirectWithNotice = (reply: FastifyReply, to: string, notice: Notice) => redirect(reply, `${to}?notice=${notice}`);
export const formOf = (request: FastifyRequest) => (request.body ?? {}) as F.Form;
export const idParam = (request: FastifyRequest, name: string): number => {
  const raw = (request.params as Record<string, string>)[name] ?? '';
  if (!/^\d{1,9}$/.test(raw)) throw new AppError('not_found', 'Not found');
  return Number(raw);
};


/** The field errors of a refused form (422), to show the form again with them; other errors go on up. */
export function refusedFields(err: unknown): Record<string, string[]> {
  if (err instanceof AppError && err.status === 422 && err.fields) return err.fields;
  throw err;
}

/** Where a form's POST goes on: the page it redirects to with its notice, or a page that shows once what the form made (a token, a link), sent as 201. */
export type FormOutcome = readonly [to: string, notice: Notice] | VNode;

/**
 * A form's POST route: `act` does what the form asks as the signed-in user and says where to go on
 * (FormOutcome). With `refused`, a form the service refuses field by field (422) is shown again, by
 * the page `refused` renders with the errors and the values sent; other errors go on up.
 */
export function formPost(
  app: FastifyInstance,
  path: string,
  act: (form: F.Form, actor: Actor, request: FastifyRequest) => Promise<FormOutcome>,
  opts: { refused?: (request: FastifyRequest, errors: Record<string, string[]>, form: F.Form) => Promise<VNode>; bodyLimit?: number } = {},
): void {
  const { refused, bodyLimit } = opts;
  app.post(path, bodyLimit === undefined ? {} : { bodyLimit }, async (request, reply) => {
    const form = formOf(request);
    let outcome: FormOutcome;
    try {
      outcome = await act(form, actorOf(request), request);
    } catch (err) {
      if (!refused) throw err;
      return sendPage(reply, await refused(request, refusedFields(err), form), 422);
    }
    if (isValidElement(outcome)) return sendPage(reply, outcome, 201);
    return redirectWithNotice(reply, outcome[0], outcome[1]);
  });
}

/**
 * A page whose form posts to the page's own path: the GET shows `page`, the POST does `act`
 * (formPost), and a form the service refuses field by field is the same page again with the errors
 * and the values sent (422).
 */
export function formPage(
  app: FastifyInstance,
  path: string,
  section: PageContext['section'],
  page: (pc: PageContext, errors?: Record<string, string[]>, values?: F.Form) => Promise<VNode>,
  act: (form: F.Form, actor: Actor, request: FastifyRequest) => Promise<FormOutcome>,
): void {
  app.get(path, async (request, reply) => sendPage(reply, await page(pageContext(request, section))));
  formPost(app, path, act, { refused: (request, errors, form) => page(pageContext(request, section), errors, form) });
}

/** The organisers a form may offer the signed-in user (every one to an admin, its own to a promoter), by id. */
export async function organisersFor(ctx: AppContext, actor: Actor): Promise<{ id: number; name: string }[]> {
  return listOrganisers(ctx.db, organiserScope(actor));
}

import crypto from 'node:crypto';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { databaseUnavailable } from '../../../http/error-handler.js';
import { AppError } from '../../../http/errors.js';
import { adminLoginCounters } from '../../../http/rate-limits.js';
import { usePagePolicy } from '../../../http/security-headers.js';
import { login, logout, normaliseEmail, sessionActor, SESSION_TTL_SECONDS } from '../accounts.service.js';
import { listAudit } from '../../../platform/audit.js';
import { ADMIN_CSS, ADMIN_JS } from './kit/dashboard.assets.js';
import accountsDashboard from './dashboard-accounts.routes.js';
import invitationsDashboard from './dashboard-invitations.routes.js';
import { formOf, pageContext, redirect, sendPage, SESSION_COOKIE } from './kit/dashboard.http.js';
import * as F from './kit/dashboard.form.js';
import { Table } from './kit/dashboard.controls.js';
import { ErrorPage, LoginPage, Page } from './kit/dashboard.page.js';
import { when } from './kit/dashboard.time.js';

// The back-office dashboard at /admin: server-rendered pages over the same services as the admin
// API. Sessions live in an HTTP-only SameSite=Lax cookie (Secure on https) holding a random id
// stored hashed; every state-changing form carries the session's synchronizer CSRF token.

const LOGIN_COOKIE = 'taquilla_admin_login';

const sameToken = (a: string, b: string) => {
  const x = crypto.createHash('sha256').update(a).digest();
  const y = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(x, y) && a.length > 0;
};

export interface DashboardOptions {
  /** Other modules' dashboard pages, behind the same sign-in and CSRF hooks; handed in by src/app.ts. */
  modulePages?: ((app: FastifyInstance) => Promise<void>)[];
}

export default async function dashboardRoutes(app: FastifyInstance, opts: DashboardOptions = {}): Promise<void> {
  const ctx = app.ctx;
  const secure = ctx.config.publicBaseUrl.startsWith('https:');

  // The dashboard is HTML for people, not part of the API contract.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  app.decorateRequest('dashboard', null);

  usePagePolicy(app, 'dashboard');
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });

  // Who is signed in: every page but login and assets needs a live session.
  app.addHook('onRequest', async (request, reply) => {
    const sessionId = request.cookies[SESSION_COOKIE];
    const found = sessionId ? await sessionActor(ctx, sessionId) : null;
    if (found) request.dashboard = { ...found, sessionId: sessionId! };
    if (!found && !request.routeOptions.config.publicPage) return redirect(reply, '/admin/login');
  });

  // Every state-changing request of a session carries its synchronizer token.
  app.addHook('preHandler', async (request) => {
    if (request.method !== 'POST' || request.routeOptions.config.publicPage || !request.dashboard) return;
    const sent = F.text(formOf(request), '_csrf');
    if (!sameToken(sent, request.dashboard.csrfToken)) {
      throw new AppError('forbidden', 'The form has expired or did not come from this dashboard; reload the page and try again');
    }
  });

  app.setErrorHandler((thrown, request, reply) => {
    const err = databaseUnavailable(thrown, request, reply) ?? thrown;
    const status = err instanceof AppError ? err.status : ((err as { statusCode?: number }).statusCode ?? 500);
    // An unreachable database (D46) is a 503 whose message may be shown; other 5xx say nothing.
    const internal = status >= 500 && err === thrown;
    if (internal) request.log.error({ err }, 'dashboard error');
    const message = internal ? 'Internal server error' : (err as Error).message;
    const fields = err instanceof AppError ? err.fields : undefined;
    const referer = request.headers.referer;
    const back = referer && referer.startsWith(ctx.config.publicBaseUrl) ? referer.slice(ctx.config.publicBaseUrl.length) : '/admin/channels';
    const pc = request.dashboard ? pageContext(request, 'channels') : null;
    return sendPage(reply, <ErrorPage pc={pc ? { ...pc, notice: null } : null} status={status} message={message} fields={fields} back={back.startsWith('/admin') ? back : '/admin/channels'} />, status);
  });
  app.setNotFoundHandler((request, reply) =>
    sendPage(reply, <ErrorPage pc={null} status={404} message={`No page at ${request.url.split('?')[0]}`} fields={undefined} back="/admin/channels" />, 404),
  );

  // ---- assets and sign-in
  const assetConfig = { config: { publicPage: true } };
  app.get('/assets/admin.css', assetConfig, async (_req, reply) => reply.header('cache-control', 'public, max-age=3600').type('text/css; charset=utf-8').send(ADMIN_CSS));
  app.get('/assets/admin.js', assetConfig, async (_req, reply) =>
    reply.header('cache-control', 'public, max-age=3600').type('text/javascript; charset=utf-8').send(ADMIN_JS),
  );

  const freshLoginForm = (reply: FastifyReply, error: string | null, email = '', status = 200) => {
    const token = crypto.randomBytes(32).toString('base64url');
    reply.setCookie(LOGIN_COOKIE, token, { path: '/admin/login', httpOnly: true, sameSite: 'strict', secure, maxAge: 3600 });
    return sendPage(reply, <LoginPage loginCsrf={token} error={error} email={email} />, status);
  };

  app.get('/login', assetConfig, async (request, reply) => {
    if (request.dashboard) return redirect(reply, '/admin/channels');
    return freshLoginForm(reply, null);
  });

  // The sign-in throttle (D45): the handler counts the failures itself (the key needs the form's e-mail).
  const loginConfig = { config: { publicPage: true, rateLimits: ['admin_login_account_address', 'admin_login_account', 'admin_login_address'] as const } };
  app.post('/login', loginConfig, async (request, reply) => {
    const form = formOf(request);
    const email = F.text(form, 'email');
    if (!sameToken(F.text(form, '_csrf'), request.cookies[LOGIN_COOKIE] ?? '')) {
      return freshLoginForm(reply, 'The sign-in form expired; please try again.', email, 403);
    }
    // Throttled per account and address, per account and per address (D45, docs/admin.md): the
    // counters are checked before the password and count failures only.
    const counters = adminLoginCounters(normaliseEmail(email), request.ip);
    try {
      await app.rateLimits.assertAllowed(reply, counters);
      const { sessionId } = await login(ctx, { email, password: F.text(form, 'password') }).catch(async (err: unknown) => {
        if (err instanceof AppError && err.code === 'invalid_credentials') await app.rateLimits.recordFailure(counters);
        throw err;
      });
      // The owner who mistyped starts afresh from this address; the account's and the address's
      // counters stay, so that signing in to one's own account never clears a guesser's trail.
      await app.rateLimits.reset(counters[0]!);
      reply.clearCookie(LOGIN_COOKIE, { path: '/admin/login' });
      reply.setCookie(SESSION_COOKIE, sessionId, { path: '/admin', httpOnly: true, sameSite: 'lax', secure, maxAge: SESSION_TTL_SECONDS });
      return redirect(reply, '/admin/channels');
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return freshLoginForm(reply, err.message, email, err.status);
    }
  });

  app.post('/logout', async (request, reply) => {
    await logout(ctx, request.dashboard!.sessionId);
    reply.clearCookie(SESSION_COOKIE, { path: '/admin' });
    return redirect(reply, '/admin/login');
  });

  app.get('/', async (_request, reply) => redirect(reply, '/admin/channels'));

  // ---- audit log (orders and the box office: orders/orders.dashboard.tsx)
  app.get('/audit', async (request, reply) => {
    const pc = pageContext(request, 'audit');
    const entries = await listAudit(ctx.db, { organiserId: pc.actor.role === 'admin' ? null : pc.actor.organiserId, limit: 100 });
    return sendPage(
      reply,
      <Page pc={pc} title="Audit log">
        <Table
          head={['When', 'Who', 'What', 'Target', 'Details']}
          rows={entries.map((e) => (
            <tr>
              <td>{when(e.created_at, pc.timeZone)}</td>
              <td>{e.user_email}</td>
              <td>{e.action}</td>
              <td>{`${e.target_type} ${e.target_id}`}</td>
              <td>
                <code>{JSON.stringify(e.details)}</code>
              </td>
            </tr>
          ))}
          caption="The last 100 entries, newest first"
        />
      </Page>,
    );
  });

  await app.register(accountsDashboard);
  await app.register(invitationsDashboard);
  for (const pages of opts.modulePages ?? []) await app.register(pages);
}

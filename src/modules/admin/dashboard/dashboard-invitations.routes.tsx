import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../../http/errors.js';
import { safeEqual } from '../../../lib/secrets.js';
import { SESSION_TTL_SECONDS } from '../accounts.service.js';
import { acceptInvitation, INVITATION_MESSAGES, invitationState } from '../invitations.service.js';
import { formOf, redirectWithNotice, sendPage, SESSION_COOKIE } from './kit/dashboard.http.js';
import * as F from './kit/dashboard.form.js';
import { Field } from './kit/dashboard.controls.js';
import { PublicPage } from './kit/dashboard.page.js';
import { when } from './kit/dashboard.time.js';

// The page at an invitation link (D65): the invitee chooses a password, is signed in and lands on
// the venues. An expired, used or replaced link says so (410); an unknown one is 404. The form's
// CSRF token is bound to a short-lived cookie, as the sign-in form's is.

const FORM_COOKIE = 'taquilla_admin_invite';
const base = '/admin/invitations';

/** An invitation link that no longer (or never did) work. */
const LinkRefused = ({ message }: { message: string }) => (
  <PublicPage title="Invitation">
    <p class="error" role="alert">
      {message}
    </p>
    <p>
      <a href="/admin/login">Go to sign in</a>
    </p>
  </PublicPage>
);

export default async function invitationsDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const secure = ctx.config.publicBaseUrl.startsWith('https:');
  const publicRoute = { config: { publicPage: true } };
  const tokenOf = (params: unknown) => String((params as { token?: string }).token ?? '');

  async function showForm(reply: FastifyReply, token: string, errors: Record<string, string[]> = {}, status = 200) {
    const state = await invitationState(ctx, token);
    if (state.state !== 'open') {
      return sendPage(reply, <LinkRefused message={INVITATION_MESSAGES[state.state]} />, state.state === 'unknown' ? 404 : 410);
    }
    const formToken = crypto.randomBytes(32).toString('base64url');
    reply.setCookie(FORM_COOKIE, formToken, { path: base, httpOnly: true, sameSite: 'strict', secure, maxAge: 3600 });
    return sendPage(
      reply,
      <PublicPage title="Welcome to Taquilla">
        <p>
          Choose the password of <strong>{state.email}</strong> for the Taquilla dashboard. This link works once, until {when(state.expiresAt.toISOString(), ctx.config.timezone)}.
        </p>
        {errors.whole ? (
          <p class="error" role="alert">
            {errors.whole.join(' ')}
          </p>
        ) : null}
        <form method="post" action={`${base}/${token}`}>
          <input type="hidden" name="_csrf" value={formToken} />
          <Field name="password" label="New password" type="password" required hint="at least 12 characters" errors={errors.password} attrs={{ autocomplete: 'new-password', minlength: 12 }} />
          <Field name="confirm" label="Repeat the password" type="password" required errors={errors.confirm} attrs={{ autocomplete: 'new-password' }} />
          <button type="submit">Set password and sign in</button>
        </form>
      </PublicPage>,
      status,
    );
  }

  app.get('/invitations/:token', publicRoute, async (request, reply) => showForm(reply, tokenOf(request.params)));

  app.post('/invitations/:token', publicRoute, async (request, reply) => {
    const token = tokenOf(request.params);
    const form = formOf(request);
    const sent = F.text(form, '_csrf');
    if (!sent || !safeEqual(sent, request.cookies[FORM_COOKIE] ?? '')) {
      return showForm(reply, token, { whole: ['The form expired; please type the password again.'] }, 403);
    }
    let sessionId: string;
    try {
      sessionId = await acceptInvitation(ctx, token, { password: F.text(form, 'password'), confirm: F.text(form, 'confirm') });
    } catch (err) {
      if (err instanceof AppError && err.status === 422 && err.fields) return showForm(reply, token, err.fields, 422);
      if (err instanceof AppError && (err.status === 410 || err.status === 404)) {
        return sendPage(reply, <LinkRefused message={err.message} />, err.status);
      }
      throw err;
    }
    reply.clearCookie(FORM_COOKIE, { path: base });
    reply.setCookie(SESSION_COOKIE, sessionId, { path: '/admin', httpOnly: true, sameSite: 'lax', secure, maxAge: SESSION_TTL_SECONDS });
    return redirectWithNotice(reply, '/admin/venues', 'welcome');
  });
}

import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../../http/errors.js';
import { safeEqual } from '../../../lib/secrets.js';
import { SESSION_TTL_SECONDS } from '../accounts.service.js';
import { acceptInvitation, INVITATION_MESSAGES, invitationState } from '../invitations.service.js';
import { formOf, redirect, sendPage, SESSION_COOKIE } from './kit/dashboard.http.js';
import * as F from './kit/dashboard.form.js';
import { html } from './kit/dashboard.html.js';
import { field, publicPage, when } from './kit/dashboard.layout.js';

// The page at an invitation link (D65): the invitee chooses a password, is signed in and lands on
// the venues. An expired, used or replaced link says so (410); an unknown one is 404. The form's
// CSRF token is bound to a short-lived cookie, as the sign-in form's is.

const FORM_COOKIE = 'taquilla_admin_invite';
const base = '/admin/invitations';

export default async function invitationsDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const secure = ctx.config.publicBaseUrl.startsWith('https:');
  const publicRoute = { config: { publicPage: true } };
  const tokenOf = (params: unknown) => String((params as { token?: string }).token ?? '');

  async function showForm(reply: FastifyReply, token: string, errors: Record<string, string[]> = {}, status = 200) {
    const state = await invitationState(ctx, token);
    if (state.state !== 'open') {
      const body = html`<p class="error" role="alert">${INVITATION_MESSAGES[state.state]}</p><p><a href="/admin/login">Go to sign in</a></p>`;
      return sendPage(reply, publicPage('Invitation', body), state.state === 'unknown' ? 404 : 410);
    }
    const formToken = crypto.randomBytes(32).toString('base64url');
    reply.setCookie(FORM_COOKIE, formToken, { path: base, httpOnly: true, sameSite: 'strict', secure, maxAge: 3600 });
    const body = html`<p>Choose the password of <strong>${state.email}</strong> for the Taquilla dashboard. This link works once, until
${when(state.expiresAt.toISOString(), ctx.config.timezone)}.</p>
${errors.whole ? html`<p class="error" role="alert">${errors.whole.join(' ')}</p>` : ''}
<form method="post" action="${base}/${token}">
  <input type="hidden" name="_csrf" value="${formToken}">
  ${field('password', 'New password', { type: 'password', required: true, hint: 'at least 12 characters', errors: errors.password, attrs: html` autocomplete="new-password" minlength="12"` })}
  ${field('confirm', 'Repeat the password', { type: 'password', required: true, errors: errors.confirm, attrs: html` autocomplete="new-password"` })}
  <button type="submit">Set password and sign in</button>
</form>`;
    return sendPage(reply, publicPage('Welcome to Taquilla', body), status);
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
        const body = html`<p class="error" role="alert">${err.message}</p><p><a href="/admin/login">Go to sign in</a></p>`;
        return sendPage(reply, publicPage('Invitation', body), err.status);
      }
      throw err;
    }
    reply.clearCookie(FORM_COOKIE, { path: base });
    reply.setCookie(SESSION_COOKIE, sessionId, { path: '/admin', httpOnly: true, sameSite: 'lax', secure, maxAge: SESSION_TTL_SECONDS });
    return redirect(reply, '/admin/venues?notice=welcome');
  });
}

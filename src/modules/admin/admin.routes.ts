import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { invalidData } from '../../http/errors.js';
import { adminActorOf as actorOf, adminOperation, refuseUnknownFields } from '../../http/admin-api.js';
import { requireAdmin } from '../../platform/actor.js';
import { authenticateApiToken, createUser, normaliseEmail, refuseTakenAccount } from './accounts.service.js';
import { createAccountAs, resendInvitationAs } from './accounts-admin.service.js';
import { listAudit } from '../../platform/audit.js';
import { createOrganiser, listOrganisersFor, updateOrganiser } from './organisers.service.js';
import * as S from './admin.schemas.js';

/**
 * Admin API under /api/admin/v1 for automation: the same services as the dashboard, with an admin
 * API token (`admin:token` of the operator CLI) as `Authorization: Bearer`.
 */
interface AdminRoutesOptions {
  /**
   * The modules' own admin API routes (<module>.admin.routes.ts), registered behind the same token
   * hook (req.adminActor). The composition root (src/app.ts) hands them in, so that admin never
   * imports those modules.
   */
  moduleRoutes?: FastifyPluginAsyncTypebox[];
}

const adminRoutes: FastifyPluginAsyncTypebox<AdminRoutesOptions> = async (app, opts) => {
  app.decorateRequest('adminActor', null);
  app.addHook('onRequest', async (request) => {
    request.adminActor = await authenticateApiToken(app.ctx, request.bearer?.hash ?? null);
  });
  const ctx = app.ctx;
  const d = adminOperation;

  // ---- accounts
  app.get('/me', { schema: { ...d('accounts', 'getCurrentUser', 'The user behind the token'), response: { 200: S.Envelope(S.Me), ...S.adminErrors } } }, async (req) => {
    const a = actorOf(req);
    return ok({ user_id: a.userId, email: a.email, role: a.role, organiser_id: a.organiserId });
  });
  app.post(
    '/users',
    { schema: { ...d('accounts', 'createUser', 'Create an admin or promoter account (admins only)'), body: S.UserCreate, response: { 201: S.Envelope(S.User), ...S.adminErrors } } },
    async (req, reply) => {
      requireAdmin(actorOf(req));
      const { email, password, role, organiser_id, invite } = req.body;
      if ((password === undefined) === (invite !== true)) {
        throw invalidData(invite === true ? { invite: ['send either a password or invite: true, not both'] } : { password: ['is required unless invite is true'] });
      }
      if (password !== undefined) {
        const user = await createUser(ctx, actorOf(req), { email, password, role, organiserId: organiser_id });
        return reply.status(201).send(ok({ ...user, invitation: null }, 'User created', 201));
      }
      // D65: an invited account; the link comes back here once and goes out by e-mail. Refused as
      // the password path refuses (404 organiser, 409 e-mail taken), not as the dashboard's form.
      await refuseTakenAccount(ctx.db, normaliseEmail(email), role === 'promoter' ? (organiser_id ?? null) : null);
      const created = await createAccountAs(ctx, actorOf(req), { email, role, organiserId: organiser_id, method: 'invitation', password: '' });
      return reply.status(201).send(ok(created, 'User invited', 201));
    },
  );
  app.post(
    '/users/:userId/invitation',
    {
      schema: {
        ...d('accounts', 'sendUserInvitation', 'A new invitation link for an account that has not set its password (e-mailed to it); earlier links stop working. Admins only'),
        params: S.Params.user,
        response: { 201: S.Envelope(S.InvitationSent), ...S.adminErrors },
      },
    },
    async (req, reply) => {
      const { email, invitation } = await resendInvitationAs(ctx, actorOf(req), req.params.userId);
      return reply.status(201).send(ok({ user_id: req.params.userId, email, invitation }, 'Invitation sent', 201));
    },
  );
  app.get('/organisers', { schema: { ...d('accounts', 'listOrganisers', 'Organisers you may see'), response: { 200: S.Envelope(Type.Array(S.Organiser)), ...S.adminErrors } } }, async (req) =>
    ok(await listOrganisersFor(ctx, actorOf(req))),
  );
  app.post(
    '/organisers',
    { schema: { ...d('accounts', 'createOrganiser', 'Create an organiser (admins only)'), body: S.OrganiserCreate, response: { 201: S.Envelope(S.Organiser), ...S.adminErrors } } },
    async (req, reply) => reply.status(201).send(ok(await createOrganiser(ctx, actorOf(req), req.body), 'Organiser created', 201)),
  );
  app.patch(
    '/organisers/:organiserId',
    {
      schema: {
        ...d('accounts', 'updateOrganiser', "Change an organiser's name or settings: refund_fees (D58), the box office address (Reply-To of its buyers' e-mails). A promoter changes its own organiser"),
        params: S.Params.organiser,
        body: S.OrganiserUpdate,
        response: { 200: S.Envelope(S.Organiser), ...S.adminErrors },
      },
      preValidation: refuseUnknownFields(S.OrganiserUpdate),
    },
    async (req) => ok(await updateOrganiser(ctx, actorOf(req), req.params.organiserId, req.body), 'Organiser updated'),
  );

  // ---- each module's own admin routes (<module>/<module>.admin.routes.ts), in the order src/app.ts gives
  for (const routes of opts.moduleRoutes ?? []) await app.register(routes);

  // ---- audit log
  app.get(
    '/audit-log',
    { schema: { ...d('audit', 'listAuditLog', 'Audit log, newest first (a promoter sees its organiser\'s entries)'), querystring: S.AuditQuery, response: { 200: S.Envelope(Type.Array(S.AuditEntry)), ...S.adminErrors } } },
    async (req) => {
      const a = actorOf(req);
      return ok(await listAudit(ctx.db, { organiserId: a.role === 'admin' ? null : a.organiserId, beforeId: req.query.before_id, limit: req.query.limit ?? 50 }));
    },
  );
};

export default adminRoutes;

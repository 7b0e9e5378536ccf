import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { invalidData } from '../../http/errors.js';
import { adminActorOf as actorOf, adminOperation, refuseUnknownFields } from '../../http/admin-api.js';
import * as channels from '../channels/channels-admin.service.js';
import { requireAdmin } from '../../platform/actor.js';
import { authenticateApiToken, createUser, normaliseEmail, refuseTakenAccount } from './accounts.service.js';
import { createAccountAs, resendInvitationAs } from './accounts-admin.service.js';
import { listAudit } from '../../platform/audit.js';
import { createOrganiser, listOrganisersFor, updateOrganiser } from './organisers.service.js';
import * as S from './admin.schemas.js';
import adminCheckinRoutes from './admin-checkin.routes.js';
import webhookAdminRoutes from './webhooks-admin.routes.js';

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

  // ---- channels, widget keys and server keys
  app.get('/channels', { schema: { ...d('channels', 'listChannels', 'Sales channels you may see'), response: { 200: S.Envelope(Type.Array(S.Channel)), ...S.adminErrors } } }, async (req) =>
    ok(await channels.listChannelViewsFor(ctx, actorOf(req))),
  );
  app.post(
    '/channels',
    { schema: { ...d('channels', 'createChannel', 'Create a sales channel'), body: S.ChannelCreate, response: { 201: S.Envelope(S.Channel), ...S.adminErrors } } },
    async (req, reply) => reply.status(201).send(ok(await channels.createChannelAs(ctx, actorOf(req), req.body), 'Sales channel created', 201)),
  );
  app.get(
    '/channels/:channelId',
    { schema: { ...d('channels', 'getChannel', 'One sales channel'), params: S.Params.channel, response: { 200: S.Envelope(S.Channel), ...S.adminErrors } } },
    async (req) => ok(await channels.getChannelFor(ctx, actorOf(req), req.params.channelId)),
  );
  app.patch(
    '/channels/:channelId',
    {
      schema: {
        ...d('channels', 'updateChannel', 'Edit a channel: mode, checkout URL, branding, cart lifetime, events (mode changes are audited)'),
        params: S.Params.channel,
        body: S.ChannelUpdate,
        response: { 200: S.Envelope(S.Channel), ...S.adminErrors },
      },
    },
    async (req) => ok(await channels.updateChannelAs(ctx, actorOf(req), req.params.channelId, req.body), 'Sales channel updated'),
  );
  app.get(
    '/channels/:channelId/keys',
    { schema: { ...d('channels', 'listWidgetKeys', 'Widget keys of a channel (creation date and last four only)'), params: S.Params.channel, response: { 200: S.Envelope(Type.Array(S.WidgetKey)), ...S.adminErrors } } },
    async (req) => ok(await channels.listKeysFor(ctx, actorOf(req), req.params.channelId)),
  );
  app.post(
    '/channels/:channelId/keys',
    { schema: { ...d('channels', 'createWidgetKey', 'Generate a widget key (returned once)'), params: S.Params.channel, response: { 201: S.Envelope(S.NewWidgetKey), ...S.adminErrors } } },
    async (req, reply) =>
      reply.status(201).send(ok(await channels.generateKeyAs(ctx, actorOf(req), req.params.channelId), 'Widget key generated; it is shown only this once', 201)),
  );
  app.delete(
    '/channels/:channelId/keys/:keyId',
    { schema: { ...d('channels', 'revokeWidgetKey', 'Revoke a widget key: every widget-scope token of the channel stops working at once'), params: S.Params.key, response: { 200: S.Envelope(S.WidgetKey), ...S.adminErrors } } },
    async (req) => ok(await channels.revokeKeyAs(ctx, actorOf(req), req.params.channelId, req.params.keyId), 'Widget key revoked'),
  );
  // Server keys (D39): the same three routes, beside the widget keys'.
  app.get(
    '/channels/:channelId/server-keys',
    { schema: { ...d('channels', 'listServerKeys', 'Server keys of a channel (creation date and last four only)'), params: S.Params.channel, response: { 200: S.Envelope(Type.Array(S.WidgetKey)), ...S.adminErrors } } },
    async (req) => ok(await channels.listKeysFor(ctx, actorOf(req), req.params.channelId, 'server')),
  );
  app.post(
    '/channels/:channelId/server-keys',
    {
      schema: {
        ...d('channels', 'createServerKey', "Generate a server key (returned once; for the channel's server only: confirm and the report of models C and D need it)"),
        params: S.Params.channel,
        response: { 201: S.Envelope(S.NewServerKey), ...S.adminErrors },
      },
    },
    async (req, reply) =>
      reply.status(201).send(ok(await channels.generateServerKeyAs(ctx, actorOf(req), req.params.channelId), 'Server key generated; it is shown only this once', 201)),
  );
  app.delete(
    '/channels/:channelId/server-keys/:keyId',
    { schema: { ...d('channels', 'revokeServerKey', 'Revoke a server key: the tokens issued from it stop working at once'), params: S.Params.key, response: { 200: S.Envelope(S.WidgetKey), ...S.adminErrors } } },
    async (req) => ok(await channels.revokeKeyAs(ctx, actorOf(req), req.params.channelId, req.params.keyId, 'server'), 'Server key revoked'),
  );

  // ---- audit log
  app.get(
    '/audit-log',
    { schema: { ...d('audit', 'listAuditLog', 'Audit log, newest first (a promoter sees its organiser\'s entries)'), querystring: S.AuditQuery, response: { 200: S.Envelope(Type.Array(S.AuditEntry)), ...S.adminErrors } } },
    async (req) => {
      const a = actorOf(req);
      return ok(await listAudit(ctx.db, { organiserId: a.role === 'admin' ? null : a.organiserId, beforeId: req.query.before_id, limit: req.query.limit ?? 50 }));
    },
  );

  // ---- check-in (issue 18): lists, devices, counts, scans, signing keys
  await app.register(adminCheckinRoutes);
  // ---- webhooks (D51)
  await app.register(webhookAdminRoutes);
};

export default adminRoutes;

import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { adminActorOf as actorOf, adminErrors, adminOperation, Params } from '../../http/admin-api.js';
import { Envelope } from '../../http/schemas.js';
import * as channels from './channels-admin.service.js';
import { Channel, ChannelCreate, ChannelUpdate, NewServerKey, NewWidgetKey, WidgetKey } from './channels.admin.schemas.js';

/**
 * The channels part of the admin API: sales channels, widget keys and server keys (a channel's
 * orders: orders/orders.admin.routes.ts). The admin shell (modules/admin/admin.routes.ts) mounts it
 * behind its token hook (req.adminActor); src/app.ts hands it in.
 */
const channelsAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const d = (operationId: string, summary: string) => adminOperation('channels', operationId, summary);

  app.get('/channels', { schema: { ...d('listChannels', 'Sales channels you may see'), response: { 200: Envelope(Type.Array(Channel)), ...adminErrors } } }, async (req) =>
    ok(await channels.listChannelViewsFor(ctx, actorOf(req))),
  );
  app.post(
    '/channels',
    { schema: { ...d('createChannel', 'Create a sales channel'), body: ChannelCreate, response: { 201: Envelope(Channel), ...adminErrors } } },
    async (req, reply) => reply.status(201).send(ok(await channels.createChannelAs(ctx, actorOf(req), req.body), 'Sales channel created', 201)),
  );
  app.get(
    '/channels/:channelId',
    { schema: { ...d('getChannel', 'One sales channel'), params: Params.channel, response: { 200: Envelope(Channel), ...adminErrors } } },
    async (req) => ok(await channels.getChannelFor(ctx, actorOf(req), req.params.channelId)),
  );
  app.patch(
    '/channels/:channelId',
    {
      schema: {
        ...d('updateChannel', 'Edit a channel: mode, checkout URL, branding, cart lifetime, events (mode changes are audited)'),
        params: Params.channel,
        body: ChannelUpdate,
        response: { 200: Envelope(Channel), ...adminErrors },
      },
    },
    async (req) => ok(await channels.updateChannelAs(ctx, actorOf(req), req.params.channelId, req.body), 'Sales channel updated'),
  );
  app.get(
    '/channels/:channelId/keys',
    { schema: { ...d('listWidgetKeys', 'Widget keys of a channel (creation date and last four only)'), params: Params.channel, response: { 200: Envelope(Type.Array(WidgetKey)), ...adminErrors } } },
    async (req) => ok(await channels.listKeysFor(ctx, actorOf(req), req.params.channelId)),
  );
  app.post(
    '/channels/:channelId/keys',
    { schema: { ...d('createWidgetKey', 'Generate a widget key (returned once)'), params: Params.channel, response: { 201: Envelope(NewWidgetKey), ...adminErrors } } },
    async (req, reply) =>
      reply.status(201).send(ok(await channels.generateKeyAs(ctx, actorOf(req), req.params.channelId), 'Widget key generated; it is shown only this once', 201)),
  );
  app.delete(
    '/channels/:channelId/keys/:keyId',
    { schema: { ...d('revokeWidgetKey', 'Revoke a widget key: every widget-scope token of the channel stops working at once'), params: Params.key, response: { 200: Envelope(WidgetKey), ...adminErrors } } },
    async (req) => ok(await channels.revokeKeyAs(ctx, actorOf(req), req.params.channelId, req.params.keyId), 'Widget key revoked'),
  );
  // Server keys (D39): the same three routes, beside the widget keys'.
  app.get(
    '/channels/:channelId/server-keys',
    { schema: { ...d('listServerKeys', 'Server keys of a channel (creation date and last four only)'), params: Params.channel, response: { 200: Envelope(Type.Array(WidgetKey)), ...adminErrors } } },
    async (req) => ok(await channels.listKeysFor(ctx, actorOf(req), req.params.channelId, 'server')),
  );
  app.post(
    '/channels/:channelId/server-keys',
    {
      schema: {
        ...d('createServerKey', "Generate a server key (returned once; for the channel's server only: confirm and the report of models C and D need it)"),
        params: Params.channel,
        response: { 201: Envelope(NewServerKey), ...adminErrors },
      },
    },
    async (req, reply) =>
      reply.status(201).send(ok(await channels.generateServerKeyAs(ctx, actorOf(req), req.params.channelId), 'Server key generated; it is shown only this once', 201)),
  );
  app.delete(
    '/channels/:channelId/server-keys/:keyId',
    { schema: { ...d('revokeServerKey', 'Revoke a server key: the tokens issued from it stop working at once'), params: Params.key, response: { 200: Envelope(WidgetKey), ...adminErrors } } },
    async (req) => ok(await channels.revokeKeyAs(ctx, actorOf(req), req.params.channelId, req.params.keyId, 'server'), 'Server key revoked'),
  );
};

export default channelsAdminRoutes;

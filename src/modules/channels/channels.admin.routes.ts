import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Params } from '../../http/admin-api.js';
import { adminRouter } from '../../http/admin-routes.js';
import * as channels from './channels-admin.service.js';
import { Channel, ChannelCreate, ChannelUpdate, NewServerKey, NewWidgetKey, WidgetKey } from './channels.admin.schemas.js';

/**
 * The channels part of the admin API: sales channels, widget keys and server keys (a channel's
 * orders: orders/orders.admin.routes.ts). The admin shell (modules/admin/admin.routes.ts) mounts it
 * behind its token hook (req.adminActor); src/app.ts hands it in.
 */
const channelsAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const route = adminRouter(app, 'channels');

  route.get('/channels', { operationId: 'listChannels', summary: 'Sales channels you may see', data: Type.Array(Channel) }, (_req, actor) => channels.listChannelViewsFor(ctx, actor));
  route.post('/channels', { operationId: 'createChannel', summary: 'Create a sales channel', body: ChannelCreate, data: Channel, status: 201, message: 'Sales channel created' }, (req, actor) =>
    channels.createChannelAs(ctx, actor, req.body),
  );
  route.get('/channels/:channelId', { operationId: 'getChannel', summary: 'One sales channel', params: Params.channel, data: Channel }, (req, actor) =>
    channels.getChannelFor(ctx, actor, req.params.channelId),
  );
  route.patch(
    '/channels/:channelId',
    {
      operationId: 'updateChannel',
      summary: 'Edit a channel: mode, checkout URL, branding, cart lifetime, events (mode changes are audited)',
      params: Params.channel,
      body: ChannelUpdate,
      data: Channel,
      message: 'Sales channel updated',
    },
    (req, actor) => channels.updateChannelAs(ctx, actor, req.params.channelId, req.body),
  );
  route.get(
    '/channels/:channelId/keys',
    { operationId: 'listWidgetKeys', summary: 'Widget keys of a channel (creation date and last four only)', params: Params.channel, data: Type.Array(WidgetKey) },
    (req, actor) => channels.listKeysFor(ctx, actor, req.params.channelId),
  );
  route.post(
    '/channels/:channelId/keys',
    { operationId: 'createWidgetKey', summary: 'Generate a widget key (returned once)', params: Params.channel, data: NewWidgetKey, status: 201, message: 'Widget key generated; it is shown only this once' },
    (req, actor) => channels.generateKeyAs(ctx, actor, req.params.channelId),
  );
  route.delete(
    '/channels/:channelId/keys/:keyId',
    { operationId: 'revokeWidgetKey', summary: 'Revoke a widget key: every widget-scope token of the channel stops working at once', params: Params.key, data: WidgetKey, message: 'Widget key revoked' },
    (req, actor) => channels.revokeKeyAs(ctx, actor, req.params.channelId, req.params.keyId),
  );
  // Server keys (D39): the same three routes, beside the widget keys'.
  route.get(
    '/channels/:channelId/server-keys',
    { operationId: 'listServerKeys', summary: 'Server keys of a channel (creation date and last four only)', params: Params.channel, data: Type.Array(WidgetKey) },
    (req, actor) => channels.listKeysFor(ctx, actor, req.params.channelId, 'server'),
  );
  route.post(
    '/channels/:channelId/server-keys',
    {
      operationId: 'createServerKey',
      summary: "Generate a server key (returned once; for the channel's server only: confirm and the report of models C and D need it)",
      params: Params.channel,
      data: NewServerKey,
      status: 201,
      message: 'Server key generated; it is shown only this once',
    },
    (req, actor) => channels.generateServerKeyAs(ctx, actor, req.params.channelId),
  );
  route.delete(
    '/channels/:channelId/server-keys/:keyId',
    { operationId: 'revokeServerKey', summary: 'Revoke a server key: the tokens issued from it stop working at once', params: Params.key, data: WidgetKey, message: 'Server key revoked' },
    (req, actor) => channels.revokeKeyAs(ctx, actor, req.params.channelId, req.params.keyId, 'server'),
  );
};

export default channelsAdminRoutes;

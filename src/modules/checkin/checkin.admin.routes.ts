import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { adminRouter } from '../../http/admin-routes.js';
import * as checkin from './checkin-admin.service.js';
import * as S from './checkin-admin.schemas.js';

/**
 * The admin API's check-in routes (issue 18, docs/checkin.md): lists, devices, counts and scans,
 * and the ticket signing keys. The admin shell (modules/admin/admin.routes.ts)
 * mounts it behind its token hook; src/app.ts hands it in.
 */
const adminCheckinRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const route = adminRouter(app, 'check-in');

  route.get('/checkin/lists', { operationId: 'listCheckinLists', summary: 'Check-in lists you may see', data: Type.Array(S.List) }, (_req, actor) => checkin.listListsFor(ctx, actor));
  route.post(
    '/checkin/lists',
    { operationId: 'createCheckinList', summary: 'Create a check-in list: sessions, optionally some sectors, re-entry or not', body: S.ListCreate, data: S.List, status: 201, message: 'Check-in list created' },
    (req, actor) => checkin.createListAs(ctx, actor, req.body),
  );
  route.get('/checkin/lists/:listId', { operationId: 'getCheckinList', summary: 'One check-in list', params: S.ListParams, data: S.List }, (req, actor) => checkin.getListFor(ctx, actor, req.params.listId));
  route.patch('/checkin/lists/:listId', { operationId: 'updateCheckinList', summary: 'Edit a check-in list', params: S.ListParams, body: S.ListUpdate, data: S.List, message: 'Check-in list updated' }, (req, actor) =>
    checkin.updateListAs(ctx, actor, req.params.listId, req.body),
  );
  route.get('/checkin/lists/:listId/counts', { operationId: 'getCheckinCounts', summary: 'Checked in / sold per session, entries per gate', params: S.ListParams, data: S.Counts }, (req, actor) =>
    checkin.listCountsFor(ctx, actor, req.params.listId),
  );
  route.get(
    '/checkin/lists/:listId/scans',
    { operationId: 'listCheckinScans', summary: 'Scans of a list, newest first (twice=true: who tried to enter twice)', params: S.ListParams, querystring: S.ScansQuery, data: Type.Array(S.Scan) },
    (req, actor) => checkin.listScansFor(ctx, actor, req.params.listId, { twice: req.query.twice, beforeId: req.query.before_id, limit: req.query.limit }),
  );
  route.get('/checkin/devices', { operationId: 'listCheckinDevices', summary: 'Check-in devices you may see', data: Type.Array(S.Device) }, (_req, actor) => checkin.listDevicesFor(ctx, actor));
  route.post(
    '/checkin/devices',
    {
      operationId: 'createCheckinDevice',
      summary: 'Create a device for a gate (its token and setup URL are returned once)',
      body: S.DeviceCreate,
      data: S.NewDevice,
      status: 201,
      message: 'Device created; its token is shown only this once',
    },
    (req, actor) => checkin.createDeviceAs(ctx, actor, req.body),
  );
  route.delete(
    '/checkin/devices/:deviceId',
    { operationId: 'revokeCheckinDevice', summary: 'Revoke a device: its next request is refused', params: S.DeviceParams, data: S.Device, message: 'Device revoked' },
    (req, actor) => checkin.revokeDeviceAs(ctx, actor, req.params.deviceId),
  );
  route.post(
    '/checkin/tickets/:ticketId/reissue',
    {
      operationId: 'reissueTicket',
      summary: 'Reissue a ticket: a new version, so that its old QR code stops scanning; its PDF (signed links) shows the new one',
      params: S.TicketParams,
      data: S.Reissued,
      message: 'Ticket reissued',
    },
    (req, actor) => checkin.reissueTicketAs(ctx, actor, req.params.ticketId),
  );
  route.get('/checkin/signing-keys', { operationId: 'listTicketSigningKeys', summary: 'Ticket signing keys (admins only)', data: Type.Array(S.SigningKey) }, (_req, actor) => checkin.listKeysAs(ctx, actor));
  route.post(
    '/checkin/signing-keys/rotate',
    { operationId: 'rotateTicketSigningKey', summary: 'A new key signs new tickets; the old one stays published while its tickets may scan (admins only)', data: S.Rotated, status: 201, message: 'Signing key rotated' },
    (_req, actor) => checkin.rotateKeyAs(ctx, actor),
  );
};

export default adminCheckinRoutes;

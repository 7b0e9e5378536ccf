import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ok } from '../../http/envelope.js';
import { adminErrors } from '../../http/admin-api.js';
import { Envelope } from '../../http/schemas.js';
import * as checkin from './checkin-admin.service.js';
import * as S from './checkin-admin.schemas.js';

/**
 * The admin API's check-in routes (issue 18, docs/checkin.md): lists, devices, counts and scans,
 * and the ticket signing keys. The admin shell (modules/admin/admin.routes.ts)
 * mounts it behind its token hook; src/app.ts hands it in.
 */
const adminCheckinRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const d = (operationId: string, summary: string) => ({ tags: ['Admin: check-in'], operationId, summary });
  const actor = (req: FastifyRequest) => req.adminActor!;

  app.get('/checkin/lists', { schema: { ...d('listCheckinLists', 'Check-in lists you may see'), response: { 200: Envelope(Type.Array(S.List)), ...adminErrors } } }, async (req) =>
    ok(await checkin.listListsFor(ctx, actor(req))),
  );
  app.post(
    '/checkin/lists',
    { schema: { ...d('createCheckinList', 'Create a check-in list: sessions, optionally some sectors, re-entry or not'), body: S.ListCreate, response: { 201: Envelope(S.List), ...adminErrors } } },
    async (req, reply) => reply.status(201).send(ok(await checkin.createListAs(ctx, actor(req), req.body), 'Check-in list created', 201)),
  );
  app.get(
    '/checkin/lists/:listId',
    { schema: { ...d('getCheckinList', 'One check-in list'), params: S.ListParams, response: { 200: Envelope(S.List), ...adminErrors } } },
    async (req) => ok(await checkin.getListFor(ctx, actor(req), req.params.listId)),
  );
  app.patch(
    '/checkin/lists/:listId',
    { schema: { ...d('updateCheckinList', 'Edit a check-in list'), params: S.ListParams, body: S.ListUpdate, response: { 200: Envelope(S.List), ...adminErrors } } },
    async (req) => ok(await checkin.updateListAs(ctx, actor(req), req.params.listId, req.body), 'Check-in list updated'),
  );
  app.get(
    '/checkin/lists/:listId/counts',
    { schema: { ...d('getCheckinCounts', 'Checked in / sold per session, entries per gate'), params: S.ListParams, response: { 200: Envelope(S.Counts), ...adminErrors } } },
    async (req) => ok(await checkin.listCountsFor(ctx, actor(req), req.params.listId)),
  );
  app.get(
    '/checkin/lists/:listId/scans',
    {
      schema: {
        ...d('listCheckinScans', 'Scans of a list, newest first (twice=true: who tried to enter twice)'),
        params: S.ListParams,
        querystring: S.ScansQuery,
        response: { 200: Envelope(Type.Array(S.Scan)), ...adminErrors },
      },
    },
    async (req) => ok(await checkin.listScansFor(ctx, actor(req), req.params.listId, { twice: req.query.twice, beforeId: req.query.before_id, limit: req.query.limit })),
  );
  app.get('/checkin/devices', { schema: { ...d('listCheckinDevices', 'Check-in devices you may see'), response: { 200: Envelope(Type.Array(S.Device)), ...adminErrors } } }, async (req) =>
    ok(await checkin.listDevicesFor(ctx, actor(req))),
  );
  app.post(
    '/checkin/devices',
    { schema: { ...d('createCheckinDevice', 'Create a device for a gate (its token and setup URL are returned once)'), body: S.DeviceCreate, response: { 201: Envelope(S.NewDevice), ...adminErrors } } },
    async (req, reply) => reply.status(201).send(ok(await checkin.createDeviceAs(ctx, actor(req), req.body), 'Device created; its token is shown only this once', 201)),
  );
  app.delete(
    '/checkin/devices/:deviceId',
    { schema: { ...d('revokeCheckinDevice', 'Revoke a device: its next request is refused'), params: S.DeviceParams, response: { 200: Envelope(S.Device), ...adminErrors } } },
    async (req) => ok(await checkin.revokeDeviceAs(ctx, actor(req), req.params.deviceId), 'Device revoked'),
  );
  app.post(
    '/checkin/tickets/:ticketId/reissue',
    {
      schema: {
        ...d('reissueTicket', "Reissue a ticket: a new version, so that its old QR code stops scanning; its PDF (signed links) shows the new one"),
        params: S.TicketParams,
        response: { 200: Envelope(S.Reissued), ...adminErrors },
      },
    },
    async (req) => ok(await checkin.reissueTicketAs(ctx, actor(req), req.params.ticketId), 'Ticket reissued'),
  );
  app.get('/checkin/signing-keys', { schema: { ...d('listTicketSigningKeys', 'Ticket signing keys (admins only)'), response: { 200: Envelope(Type.Array(S.SigningKey)), ...adminErrors } } }, async (req) =>
    ok(await checkin.listKeysAs(ctx, actor(req))),
  );
  app.post(
    '/checkin/signing-keys/rotate',
    { schema: { ...d('rotateTicketSigningKey', 'A new key signs new tickets; the old one stays published while its tickets may scan (admins only)'), response: { 201: Envelope(S.Rotated), ...adminErrors } } },
    async (req, reply) => reply.status(201).send(ok(await checkin.rotateKeyAs(ctx, actor(req)), 'Signing key rotated', 201)),
  );
};

export default adminCheckinRoutes;

import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { authenticateDevice, deviceInfo, downloadTickets, listStatus, scanTicket, uploadScans, type Device } from './checkin.service.js';
import * as S from './checkin.schemas.js';
import { Type, type TSchema } from '@fastify/type-provider-typebox';

declare module 'fastify' {
  interface FastifyRequest {
    /** The check-in device of the bearer token (scan API only). */
    checkinDevice: Device | null;
  }
}

const gzip = promisify(zlib.gzip);

const errors = {
  401: Type.Ref('ErrorEnvelope'),
  404: Type.Ref('ErrorEnvelope'),
  422: Type.Ref('ErrorEnvelope'),
};

const deviceOf = (request: FastifyRequest) => request.checkinDevice!;

/**
 * What every route of the scan API declares: the limit per device (its bearer token, D45: a gate
 * scans every second or two), its operation, its answer and the errors any call may get.
 */
const route = <R extends TSchema, T extends object = Record<never, never>>(operationId: string, summary: string, answer: R, schema?: T) => ({
  config: { rateLimits: ['checkin_device'] } as const,
  schema: { tags: ['Check-in'], operationId, summary, ...(schema as T), response: { 200: answer, ...errors } },
});

/**
 * The scan API under /api/checkin/v1 (D54, docs/checkin.md), for the scanner app and door
 * hardware: `Authorization: Bearer <device token>` on every call.
 */
const checkinRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.decorateRequest('checkinDevice', null);
  app.addHook('onRequest', async (request) => {
    request.checkinDevice = await authenticateDevice(app.ctx, request.bearer?.hash ?? null);
  });
  const ctx = app.ctx;
  app.get('/device', route('getCheckinDevice', 'The device, its check-in lists and the public keys that verify tickets', S.Device), async (req) => deviceInfo(ctx, deviceOf(req)));
  app.post(
    '/lists/:listId/scans',
    route('scanTicket', 'Scan a ticket online: valid (entry recorded), already_used, invalid, wrong_list, refunded, not_yet_valid, or exited', S.ScanAnswer, { params: S.ListParams, body: S.ScanBody }),
    async (req) => scanTicket(ctx, deviceOf(req), req.params.listId, req.body),
  );
  app.post(
    '/lists/:listId/scans/batch',
    route('uploadScans', 'Upload scans made offline (idempotent per client_scan_id; the first scan by scanned_at wins)', S.BatchAnswer, { params: S.ListParams, body: S.BatchBody }),
    async (req) => uploadScans(ctx, deviceOf(req), req.params.listId, req.body),
  );
  app.get(
    '/lists/:listId/tickets',
    route('downloadCheckinTickets', "The list's tickets changed since a cursor (all without one), paged; gzip when accepted", S.TicketsAnswer, { params: S.ListParams, querystring: S.TicketsQuery }),
    async (req, reply) => sendJson(req, reply, await downloadTickets(ctx, deviceOf(req), req.params.listId, req.query.cursor, req.query.limit ?? 5000)),
  );
  app.get(
    '/lists/:listId/status',
    route('getCheckinListStatus', 'Sold and checked-in tickets of the list, those inside, entries per gate', S.StatusAnswer, { params: S.ListParams }),
    async (req) => listStatus(ctx, deviceOf(req), req.params.listId),
  );
};

/**
 * The list download is the one large answer of this API (50,000 tickets: several MB of JSON) and
 * the app has no global compression: gzip it here when the client accepts it.
 */
async function sendJson(request: FastifyRequest, reply: FastifyReply, body: unknown) {
  const json = JSON.stringify(body);
  reply.header('content-type', 'application/json; charset=utf-8').header('vary', 'Accept-Encoding').header('cache-control', 'no-store');
  if (!acceptsGzip(request.headers['accept-encoding']) || json.length < 1024) return reply.send(json);
  return reply.header('content-encoding', 'gzip').send(await gzip(json, { level: 6 }));
}

function acceptsGzip(header: string | undefined): boolean {
  const part = header?.split(',').find((p) => p.trim().toLowerCase().startsWith('gzip'));
  return part !== undefined && !/;\s*q=0(\.0*)?\s*$/i.test(part);
}

export default checkinRoutes;

import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { etagMatches } from '../../http/etag.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ok } from '../../http/envelope.js';
import { AVAILABILITY_DESCRIPTION, AvailabilityQuery, AvailabilityResponse, answerAvailability } from './availability.http.js';
import { bearerErrors } from '../../http/schemas.js';
import { namedCache } from '../../platform/cache.js';
import type { Encoding, PayloadVersion } from './catalogue.cache.js';
import {
  ChannelLangParams,
  EventListResponse,
  EventParams,
  EventResponse,
  MapsResponse,
  SessionDetailQuery,
  SessionDetailResponse,
  SessionLayoutResponse,
  SessionListResponse,
  SessionParams,
} from './catalogue.schemas.js';
import { getEvent, getMaps, getSessionDetail, getSessionLayout, listEvents, listSessions } from './catalogue.service.js';

const common = { tags: ['Catalogue'] };
/** Reading the catalogue: every model and credential scope (integration policy). */
const CATALOGUE = { b2bOperation: 'catalogue' } as const;
const errors = { ...bearerErrors, 404: Type.Ref('ErrorEnvelope') };

/** Catalogue (SPEC "Catalogue", D34): events, sessions and maps of the channel. */
const catalogueRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/:lang/events',
    { config: { ...CATALOGUE, checklistStep: 'catalogue_read' }, schema: { ...common, operationId: 'listEvents', summary: 'Events the channel sells (simplified)', params: ChannelLangParams, response: { 200: EventListResponse, ...errors } } },
    async (request) => ok(await listEvents(app.ctx, request.channel!, request.params.lang), 'Events'),
  );

  app.get(
    '/:lang/events/:eventId',
    { config: CATALOGUE, schema: { ...common, operationId: 'getEvent', summary: 'One event with fees and sessions', params: EventParams, response: { 200: EventResponse, ...errors } } },
    async (request) => ok(await getEvent(app.ctx, request.channel!, request.params.eventId, request.params.lang), 'Event'),
  );

  app.get(
    '/:lang/events/:eventId/sessions',
    { config: CATALOGUE, schema: { ...common, operationId: 'listEventSessions', summary: 'Upcoming sessions of an event', params: EventParams, response: { 200: SessionListResponse, ...errors } } },
    async (request) => ok(await listSessions(app.ctx, request.channel!, request.params.eventId), 'Sessions'),
  );

  app.get(
    '/:lang/events/:eventId/sessions/:sessionId',
    {
      config: { ...CATALOGUE, checklistStep: 'session_read' },
      schema: {
        ...common,
        operationId: 'getSession',
        summary: 'Session detail: seats and zones with live availability and rates',
        description:
          'Cached per session and language. Revalidate with If-None-Match (weak ETag, 304); gzip or brotli per Accept-Encoding. ' +
          'Large venues: `?seats=none` leaves the seats out; read the layout once from `.../layout` and the statuses from `.../availability` (docs/catalogue.md "Large venues").',
        params: SessionParams,
        querystring: SessionDetailQuery,
        response: { 200: SessionDetailResponse, 304: Type.Null({ description: 'Not modified' }), ...errors },
      },
    },
    async (request, reply) => {
      const { eventId, sessionId, lang } = request.params;
      const cached = await getSessionDetail(app.ctx, request.channel!, eventId, sessionId, lang, request.query.seats ?? 'all');
      return sendVersion(request, reply, cached.version);
    },
  );

  app.get(
    '/:lang/events/:eventId/sessions/:sessionId/layout',
    {
      config: CATALOGUE,
      schema: {
        ...common,
        operationId: 'getSessionLayout',
        summary: 'Seat layout of a session in columns, without statuses (large venues)',
        description:
          'The numbered seats (session_seat_id, sector, row, number, position) as parallel arrays: about a sixth of the session detail of the same seats. ' +
          'It changes only with the session\'s layout: keep it and revalidate with If-None-Match (weak ETag, 304); take the statuses from `.../availability` ' +
          '(a snapshot lists the seats that are not available) and the rates from the session detail\'s sectors. gzip or brotli per Accept-Encoding. ' +
          '404 exactly where the session detail answers 404. docs/catalogue.md "Large venues".',
        params: SessionParams,
        response: { 200: SessionLayoutResponse, 304: Type.Null({ description: 'Not modified' }), ...errors },
      },
    },
    async (request, reply) => {
      const { eventId, sessionId, lang } = request.params;
      return sendVersion(request, reply, await getSessionLayout(app.ctx, request.channel!, eventId, sessionId, lang));
    },
  );

  app.get(
    '/:lang/events/:eventId/sessions/:sessionId/availability',
    {
      config: CATALOGUE,
      schema: {
        ...common,
        operationId: 'getSessionAvailability',
        summary: 'Live seat map: what changed since a version (poll, ETag or Server-Sent Events)',
        description: AVAILABILITY_DESCRIPTION,
        params: SessionParams,
        querystring: AvailabilityQuery,
        response: { 200: AvailabilityResponse, 304: Type.Null({ description: 'Not modified' }), ...errors },
      },
    },
    async (request, reply) => {
      const { eventId, sessionId } = request.params;
      return answerAvailability(app.ctx, request, reply, request.channel!, { eventId, sessionId, since: request.query.since, form: request.query.form });
    },
  );

  app.get(
    '/:lang/events/:eventId/maps',
    { config: CATALOGUE, schema: { ...common, operationId: 'getEventMaps', summary: 'Venue map: sectors with their seat layout', params: EventParams, response: { 200: MapsResponse, ...errors } } },
    async (request) => ok(await getMaps(app.ctx, request.channel!, request.params.eventId), 'Maps'),
  );
};

/** Sends pre-serialised JSON: 304 on a matching If-None-Match, else the best accepted encoding. */
async function sendVersion(request: FastifyRequest, reply: FastifyReply, version: PayloadVersion) {
  reply.header('etag', version.etag).header('cache-control', 'private, no-cache').header('vary', 'Accept-Encoding');
  if (etagMatches(request.headers['if-none-match'], version.etag)) return reply.status(304).send();
  reply.header('content-type', 'application/json; charset=utf-8');
  const encoding = preferredEncoding(request.headers['accept-encoding']);
  if (!encoding) return reply.send(version.plain);
  const body = version.compressed(encoding) ?? (await version.encode(encoding));
  return reply.header('content-encoding', encoding).send(body);
}

// Clients send a handful of distinct Accept-Encoding strings: remember the answer for each
// (wrapped, because a cache cannot hold the null of identity).
const negotiated = namedCache<string, { choice: Encoding | null }>({ name: 'catalogue.accept-encodings', max: 100 });

/** br, else gzip, as the client allows them (q=0 refuses a coding); null means identity. */
export function preferredEncoding(header: string | undefined): Encoding | null {
  if (!header) return null;
  const known = negotiated.get(header);
  if (known) return known.choice;
  const choice = negotiate(header);
  negotiated.set(header, { choice });
  return choice;
}

function negotiate(header: string): Encoding | null {
  const accepted = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    accepted.set(name!.trim(), q ? Number(q[1]) : 1);
  }
  const quality = (coding: Encoding) => accepted.get(coding) ?? accepted.get('*') ?? 0;
  const br = quality('br');
  const gz = quality('gzip');
  if (br > 0 && br >= gz) return 'br';
  if (gz > 0) return 'gzip';
  return null;
}

export default catalogueRoutes;

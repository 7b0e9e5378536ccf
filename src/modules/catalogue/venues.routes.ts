import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ok } from '../../http/envelope.js';
import { Envelope, IdParam } from '../../http/schemas.js';
import { LayoutCreate, LayoutSummary, LayoutView, VenueCreate, VenueUpdate, VenueView } from './layout.schemas.js';
import { createLayoutAs, createVenueAs, getLayoutFor, getVenueFor, listLayoutsFor, listVenueViewsFor, updateVenueAs } from './layouts.service.js';

const errors = { 401: Type.Ref('ErrorEnvelope'), 403: Type.Ref('ErrorEnvelope'), 404: Type.Ref('ErrorEnvelope'), 409: Type.Ref('ErrorEnvelope'), 422: Type.Ref('ErrorEnvelope') };
const VenueParams = Type.Object({ venueId: IdParam });
const VersionParams = Type.Object({ venueId: IdParam, version: IdParam });
const FormatQuery = Type.Object({ format: Type.Optional(Type.Union([Type.Literal('taquilla'), Type.Literal('pretix')], { default: 'taquilla' })) });

/** Layouts are large documents (a 20,000-seat plan is about 3 MB of JSON): their own body limit. */
const LAYOUT_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * Venues and their layout versions in the admin API (D64, docs/venues.md). Registered inside the
 * admin routes, behind their token hook (req.adminActor).
 */
const venueAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const d = (operationId: string, summary: string) => ({ tags: ['Admin: venues'], operationId, summary });
  const actor = (req: FastifyRequest) => req.adminActor!;

  app.get('/venues', { schema: { ...d('listVenues', 'Venues you may use, with the sectors of their newest layout'), response: { 200: Envelope(Type.Array(VenueView)), ...errors } } }, async (req) =>
    ok(await listVenueViewsFor(ctx, actor(req))),
  );
  app.post(
    '/venues',
    { schema: { ...d('createVenue', 'Create a venue (a promoter: for its own organiser); its seat map comes as layout versions'), body: VenueCreate, response: { 201: Envelope(VenueView), ...errors } } },
    async (req, reply) => reply.status(201).send(ok(await createVenueAs(ctx, actor(req), req.body), 'Venue created', 201)),
  );
  app.get(
    '/venues/:venueId',
    { schema: { ...d('getVenue', 'One venue'), params: VenueParams, response: { 200: Envelope(VenueView), ...errors } } },
    async (req) => ok(await getVenueFor(ctx, actor(req), req.params.venueId)),
  );
  app.patch(
    '/venues/:venueId',
    { schema: { ...d('updateVenue', "Change a venue's name, address or city"), params: VenueParams, body: VenueUpdate, response: { 200: Envelope(VenueView), ...errors } } },
    async (req) => ok(await updateVenueAs(ctx, actor(req), req.params.venueId, req.body), 'Venue updated'),
  );
  app.get(
    '/venues/:venueId/layouts',
    { schema: { ...d('listVenueLayouts', "A venue's layout versions, oldest first"), params: VenueParams, response: { 200: Envelope(Type.Array(LayoutSummary)), ...errors } } },
    async (req) => ok(await listLayoutsFor(ctx, actor(req), req.params.venueId)),
  );
  app.post(
    '/venues/:venueId/layouts',
    {
      bodyLimit: LAYOUT_BODY_LIMIT,
      schema: {
        ...d('createVenueLayout', "Save the venue's next layout version from a Taquilla layout or a pretix seating plan"),
        description:
          'The upcoming sessions of the venue (drafts and sessions on sale that have not started) move onto the new version. ' +
          'A version that removes or renumbers a seat one of them has sold or held is refused: 409 `layout_seat_in_use`, ' +
          'with the seats (and zones left with fewer places than they have sold and held) in `data`.',
        params: VenueParams,
        body: LayoutCreate,
        response: { 201: Envelope(LayoutView), ...errors },
      },
    },
    async (req, reply) => reply.status(201).send(ok(await createLayoutAs(ctx, actor(req), req.params.venueId, req.body), 'Layout version saved', 201)),
  );
  app.get(
    '/venues/:venueId/layouts/:version',
    {
      schema: {
        ...d('getVenueLayout', 'One layout version, as a Taquilla layout or (format=pretix) as a pretix seating plan'),
        params: VersionParams,
        querystring: FormatQuery,
        response: { 200: Envelope(LayoutView), ...errors },
      },
    },
    async (req) => ok(await getLayoutFor(ctx, actor(req), req.params.venueId, req.params.version, req.query.format)),
  );
};

export default venueAdminRoutes;

import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { adminRouter } from '../../http/admin-routes.js';
import { IdParam } from '../../http/schemas.js';
import { LayoutCreate, LayoutSummary, LayoutView, VenueCreate, VenueUpdate, VenueView } from './layout.schemas.js';
import { createLayoutAs, createVenueAs, getLayoutFor, getVenueFor, listLayoutsFor, listVenueViewsFor, updateVenueAs } from './layouts.service.js';

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
  const route = adminRouter(app, 'venues');

  route.get('/venues', { operationId: 'listVenues', summary: 'Venues you may use, with the sectors of their newest layout', data: Type.Array(VenueView) }, (_req, actor) => listVenueViewsFor(ctx, actor));
  route.post(
    '/venues',
    { operationId: 'createVenue', summary: 'Create a venue (a promoter: for its own organiser); its seat map comes as layout versions', body: VenueCreate, data: VenueView, status: 201, message: 'Venue created' },
    (req, actor) => createVenueAs(ctx, actor, req.body),
  );
  route.get('/venues/:venueId', { operationId: 'getVenue', summary: 'One venue', params: VenueParams, data: VenueView }, (req, actor) => getVenueFor(ctx, actor, req.params.venueId));
  route.patch('/venues/:venueId', { operationId: 'updateVenue', summary: "Change a venue's name, address or city", params: VenueParams, body: VenueUpdate, data: VenueView, message: 'Venue updated' }, (req, actor) =>
    updateVenueAs(ctx, actor, req.params.venueId, req.body),
  );
  route.get('/venues/:venueId/layouts', { operationId: 'listVenueLayouts', summary: "A venue's layout versions, oldest first", params: VenueParams, data: Type.Array(LayoutSummary) }, (req, actor) =>
    listLayoutsFor(ctx, actor, req.params.venueId),
  );
  route.post(
    '/venues/:venueId/layouts',
    {
      bodyLimit: LAYOUT_BODY_LIMIT,
      operationId: 'createVenueLayout',
      summary: "Save the venue's next layout version from a Taquilla layout or a pretix seating plan",
      description:
        'The upcoming sessions of the venue (drafts and sessions on sale that have not started) move onto the new version. ' +
        'A version that removes or renumbers a seat one of them has sold or held is refused: 409 `layout_seat_in_use`, ' +
        'with the seats (and zones left with fewer places than they have sold and held) in `data`.',
      params: VenueParams,
      body: LayoutCreate,
      data: LayoutView,
      status: 201,
      message: 'Layout version saved',
    },
    (req, actor) => createLayoutAs(ctx, actor, req.params.venueId, req.body),
  );
  route.get(
    '/venues/:venueId/layouts/:version',
    {
      operationId: 'getVenueLayout',
      summary: 'One layout version, as a Taquilla layout or (format=pretix) as a pretix seating plan',
      params: VersionParams,
      querystring: FormatQuery,
      data: LayoutView,
    },
    (req, actor) => getLayoutFor(ctx, actor, req.params.venueId, req.params.version, req.query.format),
  );
};

export default venueAdminRoutes;

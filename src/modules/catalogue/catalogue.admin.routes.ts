import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { adminActorOf as actorOf, adminErrors, adminOperation, Params } from '../../http/admin-api.js';
import { adminRouter } from '../../http/admin-routes.js';
import { Envelope } from '../../http/schemas.js';
import { requireAdmin } from '../../platform/actor.js';
import * as catalogue from './catalogue-admin.service.js';
import { Event, EventCreate, EventDetail, EventUpdate, Fee, FeeCreate, FeeUpdate, ImportSummary, Rate, RateCreate, RateUpdate, RatesCopied, RatesCopy, SessionCancel, SessionCancelResult, SessionCreate, SessionDetail, SessionSeries, SessionSeriesCreate, SessionUpdate } from './catalogue.admin.schemas.js';
import { importCatalogue } from './import.service.js';
import { cancelSessionAs } from './session-changes.service.js';
import { copyRatesAs, deleteRateAs } from './session-rates.service.js';
import { createSeriesAs, previewSeriesAs } from './session-series.service.js';

/**
 * The catalogue part of the admin API: events, sessions, rates, fees and the catalogue import
 * (venues: venues.routes.ts). The admin shell (modules/admin/admin.routes.ts) mounts it behind its
 * token hook (req.adminActor); src/app.ts hands it in.
 */
const catalogueAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const route = adminRouter(app, 'catalogue');

  route.post(
    '/catalogue/import',
    { operationId: 'importCatalogue', summary: 'Import a catalogue document (admins only; see docs/catalogue-import.md)', body: Type.Unknown(), data: ImportSummary, status: 201, message: 'Catalogue imported' },
    async (req, actor) => {
      requireAdmin(actor);
      return { ...(await importCatalogue(ctx, req.body)) };
    },
  );
  route.get('/events', { operationId: 'listAdminEvents', summary: 'Events you may see', data: Type.Array(Event) }, (_req, actor) => catalogue.listEventsFor(ctx, actor));
  route.post('/events', { operationId: 'createEvent', summary: 'Create an event (a draft unless a status is given)', body: EventCreate, data: EventDetail, status: 201, message: 'Event created' }, (req, actor) =>
    catalogue.createEventAs(ctx, actor, req.body),
  );
  route.get('/events/:eventId', { operationId: 'getAdminEvent', summary: 'An event with its sessions and fees', params: Params.event, data: EventDetail }, (req, actor) =>
    catalogue.getEventFor(ctx, actor, req.params.eventId),
  );
  route.patch('/events/:eventId', { operationId: 'updateEvent', summary: 'Edit an event', params: Params.event, body: EventUpdate, data: EventDetail, message: 'Event updated' }, (req, actor) =>
    catalogue.updateEventAs(ctx, actor, req.params.eventId, req.body),
  );
  route.post('/events/:eventId/publish', { operationId: 'publishEvent', summary: 'Publish an event', params: Params.event, data: EventDetail, message: 'Event published' }, (req, actor) =>
    catalogue.publishEventAs(ctx, actor, req.params.eventId),
  );
  route.post(
    '/events/:eventId/sessions',
    { operationId: 'createSession', summary: 'Add a session (with its inventory) to an event', params: Params.event, body: SessionCreate, data: SessionDetail, status: 201, message: 'Session created' },
    (req, actor) => catalogue.createSessionAs(ctx, actor, req.params.eventId, req.body),
  );
  route.post(
    '/events/:eventId/fees',
    { operationId: 'createEventFee', summary: 'Add a management fee to every session of an event', params: Params.event, body: FeeCreate, data: Fee, status: 201, message: 'Fee created' },
    (req, actor) => catalogue.createFeeAs(ctx, actor, { eventId: req.params.eventId }, req.body),
  );
  route.get('/sessions/:sessionId', { operationId: 'getAdminSession', summary: 'A session with its rates and fees', params: Params.session, data: SessionDetail }, (req, actor) =>
    catalogue.getSessionFor(ctx, actor, req.params.sessionId),
  );
  route.patch('/sessions/:sessionId', { operationId: 'updateSession', summary: 'Edit a session', params: Params.session, body: SessionUpdate, data: SessionDetail, message: 'Session updated' }, (req, actor) =>
    catalogue.updateSessionAs(ctx, actor, req.params.sessionId, req.body),
  );
  route.post('/sessions/:sessionId/publish', { operationId: 'publishSession', summary: 'Put a session on sale', params: Params.session, data: SessionDetail, message: 'Session on sale' }, (req, actor) =>
    catalogue.publishSessionAs(ctx, actor, req.params.sessionId),
  );
  route.post(
    '/sessions/:sessionId/cancel',
    {
      operationId: 'cancelSession',
      summary: 'Cancel a session (D74): its live carts end at once, its channels get session.cancelled; refund: true refunds every completed order',
      params: Params.session,
      body: SessionCancel,
      data: SessionCancelResult,
      message: 'Session cancelled',
    },
    (req, actor) => cancelSessionAs(ctx, actor, req.params.sessionId, req.body ?? {}),
  );
  route.post(
    '/sessions/:sessionId/rates',
    { operationId: 'createRate', summary: 'Add a rate to a session', params: Params.session, body: RateCreate, data: Rate, status: 201, message: 'Rate created' },
    (req, actor) => catalogue.createRateAs(ctx, actor, req.params.sessionId, req.body),
  );
  route.post(
    '/sessions/:sessionId/fees',
    { operationId: 'createSessionFee', summary: 'Add a management fee to one session', params: Params.session, body: FeeCreate, data: Fee, status: 201, message: 'Fee created' },
    (req, actor) => catalogue.createFeeAs(ctx, actor, { sessionId: req.params.sessionId }, req.body),
  );
  route.patch('/rates/:rateId', { operationId: 'updateRate', summary: 'Edit a rate', params: Params.rate, body: RateUpdate, data: Rate, message: 'Rate updated' }, (req, actor) =>
    catalogue.updateRateAs(ctx, actor, req.params.rateId, req.body),
  );
  route.patch('/fees/:feeId', { operationId: 'updateFee', summary: 'Edit a fee', params: Params.fee, body: FeeUpdate, data: Fee, message: 'Fee updated' }, (req, actor) =>
    catalogue.updateFeeAs(ctx, actor, req.params.feeId, req.body),
  );
  route.post(
    '/sessions/:sessionId/rates/copy',
    {
      operationId: 'copyRates',
      summary: "Copy another session's rates onto this one (same organiser); rates whose name this session has already are left alone",
      params: Params.session,
      body: RatesCopy,
      data: RatesCopied,
      status: 201,
      message: 'Rates copied',
    },
    (req, actor) => copyRatesAs(ctx, actor, req.params.sessionId, req.body.from_session_id),
  );
  route.delete(
    '/rates/:rateId',
    {
      operationId: 'deleteRate',
      summary: 'Delete a rate nothing uses: 409 rate_in_use while it has tickets (sold, held or of past orders), vouchers or waiting-list entries',
      params: Params.rate,
      data: Type.Null(),
      message: 'Rate deleted',
    },
    async (req, actor) => {
      await deleteRateAs(ctx, actor, req.params.rateId);
      return null;
    },
  );
  // A dry run answers 200 with the dates, the series itself 201: two statuses, so not through route.
  app.post(
    '/events/:eventId/sessions/series',
    {
      schema: {
        ...adminOperation(
          'catalogue',
          'createSessionSeries',
          'Create a series of sessions at once (daily or weekly, at one time of day in the deployment time zone, at most 100), each with copied rates; dry_run: only the dates',
        ),
        params: Params.event,
        body: SessionSeriesCreate,
        response: { 200: Envelope(SessionSeries), 201: Envelope(SessionSeries), ...adminErrors },
      },
    },
    async (req, reply) => {
      const { dry_run, ...input } = req.body;
      if (dry_run) {
        const dates = await previewSeriesAs(ctx, actorOf(req), req.params.eventId, input);
        const sessions = dates.map((d) => ({ ...d, id: null, rates: 0 }));
        return ok({ sessions, created: 0, skipped: dates.filter((d) => d.exists).length }, 'Preview: nothing created');
      }
      return reply.status(201).send(ok(await createSeriesAs(ctx, actorOf(req), req.params.eventId, input), 'Sessions created', 201));
    },
  );
  route.delete('/fees/:feeId', { operationId: 'deleteFee', summary: 'Delete a fee', params: Params.fee, data: Type.Null(), message: 'Fee deleted' }, async (req, actor) => {
    await catalogue.deleteFeeAs(ctx, actor, req.params.feeId);
    return null;
  });
};

export default catalogueAdminRoutes;

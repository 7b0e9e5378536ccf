import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { adminActorOf as actorOf, adminErrors, adminOperation, Params } from '../../http/admin-api.js';
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
  const d = (operationId: string, summary: string) => adminOperation('catalogue', operationId, summary);

  app.post(
    '/catalogue/import',
    {
      schema: {
        ...d('importCatalogue', 'Import a catalogue document (admins only; see docs/catalogue-import.md)'),
        body: Type.Unknown(),
        response: { 201: Envelope(ImportSummary), ...adminErrors },
      },
    },
    async (req, reply) => {
      requireAdmin(actorOf(req));
      return reply.status(201).send(ok({ ...(await importCatalogue(ctx, req.body)) }, 'Catalogue imported', 201));
    },
  );
  app.get('/events', { schema: { ...d('listAdminEvents', 'Events you may see'), response: { 200: Envelope(Type.Array(Event)), ...adminErrors } } }, async (req) =>
    ok(await catalogue.listEventsFor(ctx, actorOf(req))),
  );
  app.post(
    '/events',
    { schema: { ...d('createEvent', 'Create an event (a draft unless a status is given)'), body: EventCreate, response: { 201: Envelope(EventDetail), ...adminErrors } } },
    async (req, reply) => reply.status(201).send(ok(await catalogue.createEventAs(ctx, actorOf(req), req.body), 'Event created', 201)),
  );
  app.get(
    '/events/:eventId',
    { schema: { ...d('getAdminEvent', 'An event with its sessions and fees'), params: Params.event, response: { 200: Envelope(EventDetail), ...adminErrors } } },
    async (req) => ok(await catalogue.getEventFor(ctx, actorOf(req), req.params.eventId)),
  );
  app.patch(
    '/events/:eventId',
    { schema: { ...d('updateEvent', 'Edit an event'), params: Params.event, body: EventUpdate, response: { 200: Envelope(EventDetail), ...adminErrors } } },
    async (req) => ok(await catalogue.updateEventAs(ctx, actorOf(req), req.params.eventId, req.body), 'Event updated'),
  );
  app.post(
    '/events/:eventId/publish',
    { schema: { ...d('publishEvent', 'Publish an event'), params: Params.event, response: { 200: Envelope(EventDetail), ...adminErrors } } },
    async (req) => ok(await catalogue.publishEventAs(ctx, actorOf(req), req.params.eventId), 'Event published'),
  );
  app.post(
    '/events/:eventId/sessions',
    {
      schema: { ...d('createSession', 'Add a session (with its inventory) to an event'), params: Params.event, body: SessionCreate, response: { 201: Envelope(SessionDetail), ...adminErrors } },
    },
    async (req, reply) => reply.status(201).send(ok(await catalogue.createSessionAs(ctx, actorOf(req), req.params.eventId, req.body), 'Session created', 201)),
  );
  app.post(
    '/events/:eventId/fees',
    { schema: { ...d('createEventFee', 'Add a management fee to every session of an event'), params: Params.event, body: FeeCreate, response: { 201: Envelope(Fee), ...adminErrors } } },
    async (req, reply) => reply.status(201).send(ok(await catalogue.createFeeAs(ctx, actorOf(req), { eventId: req.params.eventId }, req.body), 'Fee created', 201)),
  );
  app.get(
    '/sessions/:sessionId',
    { schema: { ...d('getAdminSession', 'A session with its rates and fees'), params: Params.session, response: { 200: Envelope(SessionDetail), ...adminErrors } } },
    async (req) => ok(await catalogue.getSessionFor(ctx, actorOf(req), req.params.sessionId)),
  );
  app.patch(
    '/sessions/:sessionId',
    { schema: { ...d('updateSession', 'Edit a session'), params: Params.session, body: SessionUpdate, response: { 200: Envelope(SessionDetail), ...adminErrors } } },
    async (req) => ok(await catalogue.updateSessionAs(ctx, actorOf(req), req.params.sessionId, req.body), 'Session updated'),
  );
  app.post(
    '/sessions/:sessionId/publish',
    { schema: { ...d('publishSession', 'Put a session on sale'), params: Params.session, response: { 200: Envelope(SessionDetail), ...adminErrors } } },
    async (req) => ok(await catalogue.publishSessionAs(ctx, actorOf(req), req.params.sessionId), 'Session on sale'),
  );
  app.post(
    '/sessions/:sessionId/cancel',
    {
      schema: {
        ...d('cancelSession', 'Cancel a session (D74): its live carts end at once, its channels get session.cancelled; refund: true refunds every completed order'),
        params: Params.session,
        body: SessionCancel,
        response: { 200: Envelope(SessionCancelResult), ...adminErrors },
      },
    },
    async (req) => ok(await cancelSessionAs(ctx, actorOf(req), req.params.sessionId, req.body ?? {}), 'Session cancelled'),
  );
  app.post(
    '/sessions/:sessionId/rates',
    { schema: { ...d('createRate', 'Add a rate to a session'), params: Params.session, body: RateCreate, response: { 201: Envelope(Rate), ...adminErrors } } },
    async (req, reply) => reply.status(201).send(ok(await catalogue.createRateAs(ctx, actorOf(req), req.params.sessionId, req.body), 'Rate created', 201)),
  );
  app.post(
    '/sessions/:sessionId/fees',
    { schema: { ...d('createSessionFee', 'Add a management fee to one session'), params: Params.session, body: FeeCreate, response: { 201: Envelope(Fee), ...adminErrors } } },
    async (req, reply) => reply.status(201).send(ok(await catalogue.createFeeAs(ctx, actorOf(req), { sessionId: req.params.sessionId }, req.body), 'Fee created', 201)),
  );
  app.patch(
    '/rates/:rateId',
    { schema: { ...d('updateRate', 'Edit a rate'), params: Params.rate, body: RateUpdate, response: { 200: Envelope(Rate), ...adminErrors } } },
    async (req) => ok(await catalogue.updateRateAs(ctx, actorOf(req), req.params.rateId, req.body), 'Rate updated'),
  );
  app.patch(
    '/fees/:feeId',
    { schema: { ...d('updateFee', 'Edit a fee'), params: Params.fee, body: FeeUpdate, response: { 200: Envelope(Fee), ...adminErrors } } },
    async (req) => ok(await catalogue.updateFeeAs(ctx, actorOf(req), req.params.feeId, req.body), 'Fee updated'),
  );
  app.post(
    '/sessions/:sessionId/rates/copy',
    {
      schema: {
        ...d('copyRates', "Copy another session's rates onto this one (same organiser); rates whose name this session has already are left alone"),
        params: Params.session,
        body: RatesCopy,
        response: { 201: Envelope(RatesCopied), ...adminErrors },
      },
    },
    async (req, reply) => reply.status(201).send(ok(await copyRatesAs(ctx, actorOf(req), req.params.sessionId, req.body.from_session_id), 'Rates copied', 201)),
  );
  app.delete(
    '/rates/:rateId',
    {
      schema: {
        ...d('deleteRate', 'Delete a rate nothing uses: 409 rate_in_use while it has tickets (sold, held or of past orders), vouchers or waiting-list entries'),
        params: Params.rate,
        response: { 200: Envelope(Type.Null()), ...adminErrors },
      },
    },
    async (req) => {
      await deleteRateAs(ctx, actorOf(req), req.params.rateId);
      return ok(null, 'Rate deleted');
    },
  );
  app.post(
    '/events/:eventId/sessions/series',
    {
      schema: {
        ...d('createSessionSeries', 'Create a series of sessions at once (daily or weekly, at one time of day in the deployment time zone, at most 100), each with copied rates; dry_run: only the dates'),
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
  app.delete(
    '/fees/:feeId',
    { schema: { ...d('deleteFee', 'Delete a fee'), params: Params.fee, response: { 200: Envelope(Type.Null()), ...adminErrors } } },
    async (req) => {
      await catalogue.deleteFeeAs(ctx, actorOf(req), req.params.feeId);
      return ok(null, 'Fee deleted');
    },
  );
};

export default catalogueAdminRoutes;

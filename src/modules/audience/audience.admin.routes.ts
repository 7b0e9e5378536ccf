import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { adminActorOf, adminErrors, adminOperation } from '../../http/admin-api.js';
import { adminRouter } from '../../http/admin-routes.js';
import { ok } from '../../http/envelope.js';
import { Envelope } from '../../http/schemas.js';
import { attachment, downloadFormat, XLSX_TYPE } from '../../lib/download.js';
import { attendeeCsvFor, attendeeXlsxFor, listAttendeesFor } from './attendees.service.js';
import { Attendee, AttendeesQuery, ErasureResult, EventParams, OrganiserParams, OverviewQuery, SalesOverview, PersonalDataExport, PersonalDataRequest, Retention, RetentionUpdate, SessionMessage, SessionMessageInput, SessionParams } from './audience.schemas.js';
import { listSessionMessagesFor, sendSessionMessageAs } from './session-messages.service.js';
import { salesOverviewFor } from './overview.service.js';
import { eraseBuyer, exportBuyer, retentionFor, setRetentionAs } from './personal-data.service.js';

/**
 * The audience part of the admin API (D66-D68): attendees, the sales overview, personal data.
 * Registered inside the admin routes, behind their token hook (req.adminActor).
 */
const audienceAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;

  app.get(
    '/sessions/:sessionId/attendees',
    {
      schema: {
        ...adminOperation('audience', 'listAttendees', "A session's attendees: one row per valid ticket (D67)"),
        description:
          'JSON pages by ticket id (`after_id`, `limit`), or every row as CSV with `Accept: text/csv` or `format=csv` ' +
          '(UTF-8 with a byte-order mark, streamed; `separator=semicolon` writes `;` and decimal commas for spreadsheets that use them), ' +
          'or as an XLSX workbook with `Accept: ' + XLSX_TYPE + '` or `format=xlsx` (typed cells, times in TIMEZONE).',
        params: SessionParams,
        querystring: AttendeesQuery,
        produces: ['application/json', 'text/csv', XLSX_TYPE],
        response: { 200: Envelope(Type.Array(Attendee)), ...adminErrors },
      },
    },
    async (req, reply) => {
      const { sessionId } = req.params;
      const actor = adminActorOf(req);
      const format = downloadFormat(req.query.format, req.headers.accept);
      if (format === 'json') return ok(await listAttendeesFor(ctx, actor, sessionId, req.query));
      const { search } = req.query;
      const file =
        format === 'csv'
          ? await attendeeCsvFor(ctx, actor, sessionId, { search, separator: req.query.separator === 'semicolon' ? ';' : ',' })
          : await attendeeXlsxFor(ctx, actor, sessionId, { search });
      return reply
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : XLSX_TYPE)
        .header('content-disposition', attachment(file.fileName))
        .send(file.stream);
    },
  );

  // ---- messages to a session's ticket holders (D67)
  const route = adminRouter(app, 'audience');
  route.post(
    '/sessions/:sessionId/messages',
    {
      operationId: 'sendSessionMessage',
      summary: 'E-mail a message to every ticket holder of a session, once per address (D67)',
      description:
        'One e-mail per distinct address of the completed orders holding a valid ticket of the session, through the durable e-mail queue, ' +
        "in the organiser's name (Reply-To: its box office). The message is kept and audited. 409 when the session has no ticket holder.",
      params: SessionParams,
      body: SessionMessageInput,
      data: SessionMessage,
      status: 201,
      message: 'Message queued for every ticket holder',
    },
    (req, actor) => sendSessionMessageAs(ctx, actor, req.params.sessionId, req.body),
  );
  route.get(
    '/sessions/:sessionId/messages',
    { operationId: 'listSessionMessages', summary: "The messages sent to a session's ticket holders, newest first (D67)", params: SessionParams, data: Type.Array(SessionMessage) },
    (req, actor) => listSessionMessagesFor(ctx, actor, req.params.sessionId),
  );

  // ---- sales overview (D66)
  route.get(
    '/events/:eventId/sales',
    {
      operationId: 'getEventSalesOverview',
      summary: 'Sales overview of an event, or one of its sessions (D66)',
      description:
        'Per session sold, held, free and capacity; gross, fees, discounts, refunds and net; by channel, rate and sector; ' +
        'sales per hour or day; check-in progress. A refunded ticket counts in refunded_tickets, never in tickets.',
      params: EventParams,
      querystring: OverviewQuery,
      data: SalesOverview,
    },
    (req, actor) => salesOverviewFor(ctx, actor, req.params.eventId, req.query),
  );

  // ---- personal data (D68, docs/privacy.md)
  route.post(
    '/personal-data/erase',
    {
      operationId: 'erasePersonalData',
      summary: "Erase one buyer's personal data by e-mail address, everywhere it is kept (admins only)",
      description: 'Names, e-mail addresses and phones in orders, payments, the e-mail queue, webhook logs and audit details are overwritten; amounts, seats and tickets stay. The answer counts what changed.',
      body: PersonalDataRequest,
      data: ErasureResult,
      message: 'Personal data erased',
    },
    (req, actor) => eraseBuyer(ctx, actor, req.body.email),
  );
  route.post('/personal-data/export', { operationId: 'exportPersonalData', summary: 'Everything kept about one buyer, as JSON (admins only)', body: PersonalDataRequest, data: PersonalDataExport }, (req, actor) =>
    exportBuyer(ctx, actor, req.body.email),
  );
  route.get('/organisers/:organiserId/privacy', { operationId: 'getOrganiserPrivacy', summary: "An organiser's automatic erasure of buyers' data", params: OrganiserParams, data: Retention }, (req, actor) =>
    retentionFor(ctx, actor, req.params.organiserId),
  );
  route.put(
    '/organisers/:organiserId/privacy',
    {
      operationId: 'setOrganiserPrivacy',
      summary: "Set an organiser's automatic erasure: buyers' personal data is erased this many days after each session (null: never)",
      params: OrganiserParams,
      body: RetentionUpdate,
      data: Retention,
      message: 'Privacy setting saved',
    },
    (req, actor) => setRetentionAs(ctx, actor, req.params.organiserId, req.body.erase_after_days),
  );
};

export default audienceAdminRoutes;

import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ok } from '../../http/envelope.js';
import { Envelope } from '../../http/schemas.js';
import { attachment, downloadFormat, XLSX_TYPE } from '../../lib/download.js';
import { attendeeCsvFor, attendeeXlsxFor, listAttendeesFor } from './attendees.service.js';
import { Attendee, AttendeesQuery, ErasureResult, EventParams, OrganiserParams, OverviewQuery, SalesOverview, PersonalDataExport, PersonalDataRequest, Retention, RetentionUpdate, SessionMessage, SessionMessageInput, SessionParams } from './audience.schemas.js';
import { listSessionMessagesFor, sendSessionMessageAs } from './session-messages.service.js';
import { salesOverviewFor } from './overview.service.js';
import { eraseBuyer, exportBuyer, retentionFor, setRetentionAs } from './personal-data.service.js';

const errors = {
  401: Type.Ref('ErrorEnvelope'),
  403: Type.Ref('ErrorEnvelope'),
  404: Type.Ref('ErrorEnvelope'),
  409: Type.Ref('ErrorEnvelope'),
  422: Type.Ref('ErrorEnvelope'),
};

/**
 * The audience part of the admin API (D66-D68): attendees, the sales overview, personal data.
 * Registered inside the admin routes, behind their token hook (req.adminActor).
 */
const audienceAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const d = (operationId: string, summary: string) => ({ tags: ['Admin: audience'], operationId, summary });
  const actor = (req: FastifyRequest) => req.adminActor!;

  app.get(
    '/sessions/:sessionId/attendees',
    {
      schema: {
        ...d('listAttendees', "A session's attendees: one row per valid ticket (D67)"),
        description:
          'JSON pages by ticket id (`after_id`, `limit`), or every row as CSV with `Accept: text/csv` or `format=csv` ' +
          '(UTF-8 with a byte-order mark, streamed; `separator=semicolon` writes `;` and decimal commas for spreadsheets that use them), ' +
          'or as an XLSX workbook with `Accept: ' + XLSX_TYPE + '` or `format=xlsx` (typed cells, times in TIMEZONE).',
        params: SessionParams,
        querystring: AttendeesQuery,
        produces: ['application/json', 'text/csv', XLSX_TYPE],
        response: { 200: Envelope(Type.Array(Attendee)), ...errors },
      },
    },
    async (req, reply) => {
      const { sessionId } = req.params;
      const format = downloadFormat(req.query.format, req.headers.accept);
      if (format === 'json') return ok(await listAttendeesFor(ctx, actor(req), sessionId, req.query));
      const { search } = req.query;
      const file =
        format === 'csv'
          ? await attendeeCsvFor(ctx, actor(req), sessionId, { search, separator: req.query.separator === 'semicolon' ? ';' : ',' })
          : await attendeeXlsxFor(ctx, actor(req), sessionId, { search });
      return reply
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : XLSX_TYPE)
        .header('content-disposition', attachment(file.fileName))
        .send(file.stream);
    },
  );

  // ---- messages to a session's ticket holders (D67)
  app.post(
    '/sessions/:sessionId/messages',
    {
      schema: {
        ...d('sendSessionMessage', 'E-mail a message to every ticket holder of a session, once per address (D67)'),
        description:
          'One e-mail per distinct address of the completed orders holding a valid ticket of the session, through the durable e-mail queue, ' +
          "in the organiser's name (Reply-To: its box office). The message is kept and audited. 409 when the session has no ticket holder.",
        params: SessionParams,
        body: SessionMessageInput,
        response: { 201: Envelope(SessionMessage), ...errors },
      },
    },
    async (req, reply) => reply.status(201).send(ok(await sendSessionMessageAs(ctx, actor(req), req.params.sessionId, req.body), 'Message queued for every ticket holder', 201)),
  );
  app.get(
    '/sessions/:sessionId/messages',
    { schema: { ...d('listSessionMessages', "The messages sent to a session's ticket holders, newest first (D67)"), params: SessionParams, response: { 200: Envelope(Type.Array(SessionMessage)), ...errors } } },
    async (req) => ok(await listSessionMessagesFor(ctx, actor(req), req.params.sessionId)),
  );

  // ---- sales overview (D66)
  app.get(
    '/events/:eventId/sales',
    {
      schema: {
        ...d('getEventSalesOverview', 'Sales overview of an event, or one of its sessions (D66)'),
        description:
          'Per session sold, held, free and capacity; gross, fees, discounts, refunds and net; by channel, rate and sector; ' +
          'sales per hour or day; check-in progress. A refunded ticket counts in refunded_tickets, never in tickets.',
        params: EventParams,
        querystring: OverviewQuery,
        response: { 200: Envelope(SalesOverview), ...errors },
      },
    },
    async (req) => ok(await salesOverviewFor(ctx, actor(req), req.params.eventId, req.query)),
  );

  // ---- personal data (D68, docs/privacy.md)
  app.post(
    '/personal-data/erase',
    {
      schema: {
        ...d('erasePersonalData', "Erase one buyer's personal data by e-mail address, everywhere it is kept (admins only)"),
        description: 'Names, e-mail addresses and phones in orders, payments, the e-mail queue, webhook logs and audit details are overwritten; amounts, seats and tickets stay. The answer counts what changed.',
        body: PersonalDataRequest,
        response: { 200: Envelope(ErasureResult), ...errors },
      },
    },
    async (req) => ok(await eraseBuyer(ctx, actor(req), req.body.email), 'Personal data erased'),
  );
  app.post(
    '/personal-data/export',
    {
      schema: {
        ...d('exportPersonalData', "Everything kept about one buyer, as JSON (admins only)"),
        body: PersonalDataRequest,
        response: { 200: Envelope(PersonalDataExport), ...errors },
      },
    },
    async (req) => ok(await exportBuyer(ctx, actor(req), req.body.email)),
  );
  app.get(
    '/organisers/:organiserId/privacy',
    { schema: { ...d('getOrganiserPrivacy', "An organiser's automatic erasure of buyers' data"), params: OrganiserParams, response: { 200: Envelope(Retention), ...errors } } },
    async (req) => ok(await retentionFor(ctx, actor(req), req.params.organiserId)),
  );
  app.put(
    '/organisers/:organiserId/privacy',
    {
      schema: {
        ...d('setOrganiserPrivacy', "Set an organiser's automatic erasure: buyers' personal data is erased this many days after each session (null: never)"),
        params: OrganiserParams,
        body: RetentionUpdate,
        response: { 200: Envelope(Retention), ...errors },
      },
    },
    async (req) => ok(await setRetentionAs(ctx, actor(req), req.params.organiserId, req.body.erase_after_days), 'Privacy setting saved'),
  );
};

export default audienceAdminRoutes;

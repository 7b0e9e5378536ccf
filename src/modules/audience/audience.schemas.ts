import { Type } from '@fastify/type-provider-typebox';
import { EmailAddress, IdParam, Int32, Nullable, Text } from '../../http/schemas.js';
import { OverviewWaitingList } from '../waitinglist/waitinglist.schemas.js';

// Answers only, documented without the shared Timestamp's length bound (http/schemas.ts).
const Timestamp = Type.String({ format: 'date-time' });

export const SessionParams = Type.Object({ sessionId: IdParam });
export const EventParams = Type.Object({ eventId: IdParam });
export const OrganiserParams = Type.Object({ organiserId: IdParam });

export const AttendeesQuery = Type.Object({
  search: Type.Optional(Text(200, { description: 'text in the holder name, e-mail, order reference or ticket code' })),
  after_id: Type.Optional(Int32({ minimum: 0, description: 'keyset: tickets with a larger ticket_id (the last of the previous page)' })),
  limit: Type.Optional(Int32({ minimum: 1, maximum: 1000 })),
  format: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('csv'), Type.Literal('xlsx')], {
      description: 'csv: every attendee as text/csv (also `Accept: text/csv`); xlsx: as an XLSX workbook',
    }),
  ),
  separator: Type.Optional(Type.Union([Type.Literal('comma'), Type.Literal('semicolon')], { description: "CSV separator; semicolon (with decimal commas) for spreadsheets set up for a decimal comma (Spain's Excel)" })),
});

export const Attendee = Type.Object({
  ticket_id: Type.Integer(),
  ticket_code: Type.String(),
  holder_name: Nullable(Type.String()),
  holder_surname: Nullable(Type.String()),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  lang: Type.String(),
  sector: Type.String(),
  row: Nullable(Type.String()),
  seat: Nullable(Type.String()),
  rate: Type.String(),
  channel: Type.String(),
  order_reference: Type.String(),
  total_amount: Type.Number(),
  purchased_at: Timestamp,
  checked_in: Type.Boolean(),
  checked_in_at: Type.Union([Timestamp, Type.Null()]),
});

/** Columns of the attendee CSV, in order. */
export const ATTENDEE_CSV_COLUMNS = [
  'ticket_code',
  'holder_name',
  'holder_surname',
  'email',
  'phone',
  'sector',
  'row',
  'seat',
  'rate',
  'channel',
  'order_reference',
  'total_amount',
  'purchased_at',
  'checked_in',
  'checked_in_at',
] as const;

export const PersonalDataRequest = Type.Object({ email: EmailAddress('the buyer\'s e-mail address') }, { additionalProperties: false });

export const ErasureResult = Type.Object({
  customers: Type.Integer({ description: 'buyer records overwritten (one per completed order)' }),
  orders: Type.Integer(),
  payments: Type.Integer(),
  emails: Type.Integer({ description: 'e-mails of the queue whose recipient was overwritten' }),
  log_entries: Type.Integer({ description: 'webhook, idempotency and audit entries that quoted the buyer' }),
});

const Row = Type.Record(Type.String(), Type.Unknown());
export const PersonalDataExport = Type.Object({
  email: Type.String(),
  exported_at: Type.String({ format: 'date-time' }),
  orders: Type.Array(Row),
  payments: Type.Array(Row),
  emails: Type.Array(Row),
});

export const Retention = Type.Object({
  organiser_id: Type.Integer(),
  erase_after_days: Type.Union([Type.Integer(), Type.Null()]),
});
export const RetentionUpdate = Type.Object(
  { erase_after_days: Type.Union([Int32({ minimum: 1, maximum: 3650 }), Type.Null()], { description: 'days after the end of each session; null turns it off' }) },
  { additionalProperties: false },
);

export const OverviewQuery = Type.Object({
  session_id: Type.Optional(IdParam),
  interval: Type.Optional(Type.Union([Type.Literal('hour'), Type.Literal('day')], { description: 'buckets of sales_over_time, in TIMEZONE (default day)' })),
  lang: Type.Optional(Text(5, { pattern: '^[a-z]{2}(-[A-Za-z]{2})?$', description: 'language of rate names' })),
});

const Money = {
  tickets: Type.Integer({ description: 'tickets sold and not refunded' }),
  refunded_tickets: Type.Integer(),
  base_amount: Type.Number(),
  discount_amount: Type.Number(),
  fee_amount: Type.Number(),
  gross_amount: Type.Number({ description: 'what buyers paid: base - discount + fee' }),
  refund_amount: Type.Number({ description: 'what refunds gave back (positive)' }),
  net_amount: Type.Number({ description: 'gross - refunds' }),
};
const Inventory = {
  capacity: Type.Integer(),
  sold: Type.Integer(),
  held: Type.Integer({ description: 'held by a live cart now' }),
  free: Type.Integer(),
  blocked: Type.Integer(),
};

export const SalesOverview = Type.Object({
  event_id: Type.Integer(),
  session_id: Type.Union([Type.Integer(), Type.Null()]),
  currency: Type.String(),
  timezone: Type.String(),
  totals: Type.Object({ ...Money, ...Inventory, checked_in: Type.Integer() }),
  sessions: Type.Array(Type.Object({ id: Type.Integer(), start_datetime: Timestamp, status: Type.String(), ...Money, ...Inventory, checked_in: Type.Integer() })),
  channels: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), ...Money })),
  rates: Type.Array(Type.Object({ name: Type.String(), ...Money })),
  sectors: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), ...Money, ...Inventory })),
  sales_over_time: Type.Object({
    interval: Type.String(),
    points: Type.Array(Type.Object({ at: Type.String({ format: 'date-time', description: 'start of the bucket: local time of TIMEZONE with its offset (2026-12-07T05:00:00+01:00)' }), tickets: Type.Integer(), gross_amount: Type.Number() })),
  }),
  queue: Nullable(
    Type.Object(
      {
        queue_length: Type.Integer({ description: 'buyers waiting, over the sessions' }),
        admitted: Type.Integer({ description: 'numbers admitted, over the sessions' }),
        sessions: Type.Array(
          Type.Object({
            session_id: Type.Integer(),
            state: Type.String({ description: 'closed, pre_queue, drawing, admitting or ended (D60)' }),
            queue_length: Type.Integer(),
            admitted_through: Type.Integer(),
            admission_per_minute: Nullable(Type.Integer()),
            sales_start_at: Nullable(Timestamp),
          }),
        ),
      },
      { description: 'the waiting rooms (D60) of the event\'s sessions, from their status documents; null when no session has one' },
    ),
  ),
  waiting_list: OverviewWaitingList,
});

/** A message to every ticket holder of a session (D67). */
export const SessionMessageInput = Type.Object(
  {
    subject: Text(200, { minLength: 1, description: "the e-mail's subject, one line" }),
    body: Text(5000, { minLength: 1, description: 'plain text; blank lines separate paragraphs' }),
  },
  { additionalProperties: false },
);
export const SessionMessage = Type.Object({
  id: Type.Integer(),
  session_id: Type.Integer(),
  subject: Type.String(),
  body: Type.String(),
  sent_by: Type.String({ description: 'who sent it (the admin user or cli:<user>)' }),
  recipients: Type.Integer({ description: 'distinct addresses of the ticket holders, one e-mail each' }),
  emails: Type.Object({ sent: Type.Integer(), queued: Type.Integer(), failed: Type.Integer() }, { description: 'how its e-mails stand in the durable queue' }),
  created_at: Timestamp,
});

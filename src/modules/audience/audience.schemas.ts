import { Type } from '@fastify/type-provider-typebox';
import { EmailAddress, IdParam, Int32, Text } from '../../http/schemas.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });

export const SessionParams = Type.Object({ sessionId: IdParam });
export const EventParams = Type.Object({ eventId: IdParam });
export const OrganiserParams = Type.Object({ organiserId: IdParam });

export const AttendeesQuery = Type.Object({
  search: Type.Optional(Text(200, { description: 'text in the holder name, e-mail, order reference or ticket code' })),
  after_id: Type.Optional(Int32({ minimum: 0, description: 'keyset: tickets with a larger ticket_id (the last of the previous page)' })),
  limit: Type.Optional(Int32({ minimum: 1, maximum: 1000 })),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'csv: every attendee as text/csv (also `Accept: text/csv`)' })),
  separator: Type.Optional(Type.Union([Type.Literal('comma'), Type.Literal('semicolon')], { description: "CSV separator; semicolon for spreadsheets set up for a decimal comma (Spain's Excel)" })),
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

import { Type, type Static } from '@fastify/type-provider-typebox';
import { Envelope, IdParam, Nullable, Text } from '../../http/schemas.js';

/** Most event ids one report call may name (event_id, event_ids[] and event_ids together). */
const MAX_EVENT_IDS = 100;

const EventIdList = Type.Array(IdParam, {
  maxItems: MAX_EVENT_IDS,
  description: 'several events (repeat the key: event_ids[]=1&event_ids[]=2)',
});
const Day = (description: string) => Text(10, { format: 'date', description: `${description}, Y-m-d, a calendar day in TIMEZONE` });

/** Query of GET .../reports/sales (SPEC "Sales report"); `event_ids` is accepted as well as `event_ids[]`. */
export const ReportQuery = Type.Object({
  event_id: Type.Optional(IdParam),
  'event_ids[]': Type.Optional(EventIdList),
  event_ids: Type.Optional(EventIdList),
  date_from: Type.Optional(Day('first day of the range, inclusive')),
  date_to: Type.Optional(Day('last day of the range, inclusive')),
  format: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('csv'), Type.Literal('xlsx')], { description: 'csv: same rows as text/csv; xlsx: as an XLSX workbook' }),
  ),
});
export type ReportQuery = Static<typeof ReportQuery>;


/** SPEC "Sales report row". */
export const ReportRow = Type.Object({
  id: Type.Integer(),
  order_reference: Type.String(),
  type: Type.Union([Type.Literal('purchase'), Type.Literal('refund'), Type.Literal('reservation')]),
  datetime: Type.String({ description: 'creation time of the order, ISO 8601 with offset' }),
  customer_name: Nullable(Type.String()),
  customer_email: Nullable(Type.String()),
  event_name: Nullable(Type.String()),
  session_datetime: Nullable(Type.String()),
  tickets: Type.Integer({ description: 'negative on refund rows' }),
  base_amount: Type.Number(),
  discount_amount: Type.Number(),
  fee_amount: Type.Number(),
  payment_method: Nullable(Type.String()),
  total_amount: Type.Number(),
  currency: Type.String(),
  status: Type.Union([Type.Literal('completed'), Type.Literal('cancelled')]),
});
export type ReportRow = Static<typeof ReportRow>;

/** SPEC "Sales report summary", rules of DECISIONS D30. */
export const ReportSummary = Type.Object({
  transactions: Type.Integer(),
  purchases: Type.Integer(),
  refunds: Type.Integer(),
  reservations: Type.Integer(),
  tickets: Type.Integer(),
  base_amount: Type.Number(),
  discount_amount: Type.Number(),
  fee_amount: Type.Number(),
  total_amount: Type.Number(),
  refund_amount: Type.Number(),
  net_amount: Type.Number(),
  currency: Type.String(),
});
export type ReportSummary = Static<typeof ReportSummary>;

/** SPEC "Report envelope". */
export const ReportResponse = Envelope(Type.Object({ data: Type.Array(ReportRow), summary: ReportSummary }));

/** Columns of the CSV export, in order: the row fields of SPEC. */
export const CSV_COLUMNS = Object.keys(ReportRow.properties) as (keyof ReportRow)[];

import { sql, type SQL } from 'drizzle-orm';
import { queryRowsPrepared, type Db } from '../../db/client.js';
import { eventTextSql } from '../../platform/i18n.js';

/** What the report query selects. Dates are calendar days (Y-m-d) in `timezone`, both inclusive. */
export interface ReportSelection {
  channelId: number;
  lang: string;
  timezone: string;
  eventIds: number[] | null;
  dateFrom: string | null;
  dateTo: string | null;
  /** D28: without filters only completed orders are listed; with filters cancelled ones too. */
  includeCancelled: boolean;
  limit: number;
  /** The deployment's currency, for the summary (D11). */
  currency: string;
}

/** ISO 8601 in UTC with an explicit offset, whole seconds: the same text as `isoWithOffset()`. */
const iso = (column: SQL) => sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"')`;
/**
 * Minor units to the API's JSON number (D11): the float division gives the same double, and
 * PostgreSQL prints the same shortest text, as `toAmount()` and JSON.stringify do in Node.
 */
const amount = (minor: SQL) => sql`(${minor})::float8 / 100`;

/**
 * The report in one statement, answered as the JSON text of the envelope's `data` object
 * (`{"data": [rows], "summary": {...}}`, SPEC "Report envelope"), so that Node neither parses nor
 * re-serialises 500 rows: the route sends the text as it comes. `picked` is the function
 * report_transactions (src/db/functions), which reads the channel's transactions newest first and stops
 * at the limit (with an event filter, from order_events, migration 0041); everything else (customer,
 * first item's event and session, ticket count, the summary) is computed over exactly those rows. A
 * refund row has no items of its own: its event, session and ticket count come from the items of
 * the order it refunds that the refund covered (refund_items; a partial refund counts its tickets).
 */
export function reportQuery(s: ReportSelection): SQL {
  // Calendar days of the deployment's time zone become UTC instants here, in the database. Every
  // value is a parameter (NULL when absent), so the statement text is always the same.
  const from = sql`(${s.dateFrom}::date)::timestamp AT TIME ZONE ${s.timezone}`;
  const to = sql`(${s.dateTo}::date + 1)::timestamp AT TIME ZONE ${s.timezone}`;
  // The ids are validated integers, sent as one array parameter.
  const ids = s.eventIds ? `{${s.eventIds.join(',')}}` : null;
  // D30: completed purchases and reservations make the invoiced amounts; refunds are apart.
  const isCounted = sql`r.status = 'completed' AND r.type <> 'refund'`;
  const isRefund = sql`r.status = 'completed' AND r.type = 'refund'`;
  return sql`
WITH picked AS (
  -- The transactions to list (migration 0042): planned on each call with the actual values.
  SELECT * FROM report_transactions(${s.channelId}::integer, ${ids}::integer[], ${from}, ${to},
                                    ${s.includeCancelled}::boolean, ${s.limit}::integer)
),
report AS (
  SELECT p.*,
         CASE WHEN c.id IS NULL THEN NULL ELSE c.name || ' ' || c.surname END AS customer_name,
         c.email AS customer_email,
         ${eventTextSql('name', sql`e.id`, s.lang, sql`e.default_lang`)} AS event_name,
         ses.start_datetime AS session_datetime,
         CASE WHEN p.type = 'refund' THEN -items.n ELSE items.n END AS tickets
  FROM picked p
  LEFT JOIN customers c ON c.id = p.customer_id
  CROSS JOIN LATERAL (
    SELECT count(*)::int AS n,
           (array_agg(i.event_id ORDER BY i.id))[1] AS event_id,
           (array_agg(i.session_id ORDER BY i.id))[1] AS session_id
    FROM order_items i WHERE i.order_id = p.items_order_id
      -- D30: a refund row counts the tickets it refunded (refund_items), not the whole order.
      AND (p.type <> 'refund' OR EXISTS (SELECT 1 FROM refund_items ri WHERE ri.refund_order_id = p.id AND ri.order_item_id = i.id))
  ) items
  LEFT JOIN events e ON e.id = items.event_id
  LEFT JOIN sessions ses ON ses.id = items.session_id
)
SELECT json_build_object(
  'data', COALESCE((
    -- Each row as the record j, whose column names are the row's JSON keys: json_agg writes a
    -- record without the spaces json_build_object puts around every key (10% fewer bytes to send).
    SELECT json_agg(j ORDER BY r.created_at DESC, r.id DESC)
    FROM report r CROSS JOIN LATERAL (
      SELECT r.id, r.reference AS order_reference, r.type, ${iso(sql`r.created_at`)} AS datetime,
             r.customer_name, r.customer_email, r.event_name, ${iso(sql`r.session_datetime`)} AS session_datetime,
             r.tickets, ${amount(sql`r.base_amount`)} AS base_amount, ${amount(sql`r.discount_amount`)} AS discount_amount,
             ${amount(sql`r.fee_amount`)} AS fee_amount, r.payment_method, ${amount(sql`r.total_amount`)} AS total_amount,
             r.currency, r.status
    ) j
  ), '[]'::json),
  'summary', (
    SELECT json_build_object(
      'transactions', count(*),
      'purchases', count(*) FILTER (WHERE r.status = 'completed' AND r.type = 'purchase'),
      'refunds', count(*) FILTER (WHERE r.status = 'completed' AND r.type = 'refund'),
      'reservations', count(*) FILTER (WHERE r.status = 'completed' AND r.type = 'reservation'),
      'tickets', COALESCE(sum(r.tickets) FILTER (WHERE ${isCounted}), 0),
      'base_amount', ${amount(sql`COALESCE(sum(r.base_amount) FILTER (WHERE ${isCounted}), 0)`)},
      'discount_amount', ${amount(sql`COALESCE(sum(r.discount_amount) FILTER (WHERE ${isCounted}), 0)`)},
      'fee_amount', ${amount(sql`COALESCE(sum(r.fee_amount) FILTER (WHERE ${isCounted}), 0)`)},
      'total_amount', ${amount(sql`COALESCE(sum(r.total_amount) FILTER (WHERE ${isCounted}), 0)`)},
      'refund_amount', ${amount(sql`COALESCE(abs(sum(r.total_amount) FILTER (WHERE ${isRefund})), 0)`)},
      'net_amount', ${amount(sql`COALESCE(sum(r.total_amount) FILTER (WHERE ${isCounted}), 0)
                               - COALESCE(abs(sum(r.total_amount) FILTER (WHERE ${isRefund})), 0)`)},
      'currency', ${s.currency}::text
    )
    FROM report r
  )
)::text AS report`;
}

/** Runs the report query: the JSON text of `{data: rows newest first, summary over exactly those rows}`. */
export async function selectSalesReportJson(db: Db, selection: ReportSelection): Promise<string> {
  // One statement text for every call: a prepared statement that each connection parses and plans
  // once (its plan does not depend on the values; report_transactions plans the part that does).
  const [result] = await queryRowsPrepared<{ report: string }>(db, 'sales_report', reportQuery(selection));
  return result!.report;
}

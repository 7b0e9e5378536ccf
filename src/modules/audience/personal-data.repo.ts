import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { itemPlaceJoins } from '../../db/ticket-place.js';

/**
 * Where a buyer's personal data is kept (D68, docs/privacy.md), one entry per column. Every column
 * of the database whose name says it holds an e-mail, a phone or a person's name must be listed
 * here (test/audience/personal-data.test.ts compares this list with the schema), with what erasure
 * does to it:
 * - `buyer`: the buyer's own field; erasure overwrites it;
 * - `scrubbed`: free text or JSON that may quote a buyer; erasure replaces the address and names inside;
 * - `staff`: about back-office accounts, not buyers (their own data, kept with the account);
 * - `none`: holds no personal data despite its name.
 */
export const PERSONAL_DATA_COLUMNS = {
  'customers.name': 'buyer',
  'customers.surname': 'buyer',
  'customers.email': 'buyer',
  'customers.phone': 'buyer',
  'payments.buyer_name': 'buyer',
  'payments.buyer_surname': 'buyer',
  'payments.buyer_email': 'buyer',
  'payments.buyer_phone': 'buyer',
  'email_outbox.recipient': 'buyer',
  // D69: who waits for seats (the join's e-mail and optional name).
  'waiting_list_entries.email': 'buyer',
  'waiting_list_entries.name': 'buyer',
  'email_outbox.last_error': 'scrubbed',
  'webhook_events.data': 'scrubbed',
  'webhook_events.order_rows': 'scrubbed',
  'webhook_events.extra': 'scrubbed',
  'webhook_events.payload': 'scrubbed',
  'webhook_attempts.response_excerpt': 'scrubbed',
  'webhook_attempts.error': 'scrubbed',
  'idempotency_keys.response_body': 'scrubbed',
  'audit_log.details': 'scrubbed',
  'users.email': 'staff',
  'login_failures.email': 'staff',
  'audit_log.user_email': 'staff',
  // The organiser's box office address (Reply-To of its buyers' e-mails): a business address, not a buyer's.
  'organisers.reply_to_email': 'staff',
  // A random browser id or a keyed hash of an address (src/modules/orders/orders.buyer.ts): no
  // name, address or e-mail, and it leads to none once the buyer's fields are erased.
  'orders.buyer_key': 'none',
} as const satisfies Record<string, 'buyer' | 'scrubbed' | 'staff' | 'none'>;

/** The free-text columns that erasure scrubs, with their SQL type (json columns go through text). */
const SCRUBBED: { table: string; column: string; type: 'text' | 'json' | 'jsonb' }[] = [
  { table: 'email_outbox', column: 'last_error', type: 'text' },
  { table: 'webhook_events', column: 'data', type: 'json' },
  { table: 'webhook_events', column: 'order_rows', type: 'json' },
  { table: 'webhook_events', column: 'extra', type: 'json' },
  { table: 'webhook_events', column: 'payload', type: 'text' },
  { table: 'webhook_attempts', column: 'response_excerpt', type: 'text' },
  { table: 'webhook_attempts', column: 'error', type: 'text' },
  { table: 'idempotency_keys', column: 'response_body', type: 'text' },
  { table: 'audit_log', column: 'details', type: 'jsonb' },
];

/** What erasure writes instead of a name. */
const ERASED_NAME = 'erased';

/** Whose data to erase: the buyer records found, and the strings that stand for the person in free text. */
export interface ErasureTarget {
  customerIds: number[];
  orderIds: number[];
  /** Addresses as stored (any case); matched case-insensitively. */
  addresses: string[];
  /** Names, surnames and "name surname" of the erased customers, replaced in the rows that quote an address. */
  names: string[];
  /** The address written instead (…@erased.invalid, RFC 2606: it can never receive mail). */
  replacement: string;
  /**
   * `address`: every payment and e-mail to one of the addresses (a buyer's erasure request);
   * `orders`: only those of orderIds (the automatic erasure, which must not touch the same
   * buyer's e-mails about a later show).
   */
  scope: 'address' | 'orders';
}

/** Counts of what one erasure changed, for its answer and its audit entry. */
export interface ErasureCounts {
  customers: number;
  orders: number;
  payments: number;
  emails: number;
  log_entries: number;
}

const regexEscape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The buyer records of an address: its customers (one per completed order) and their orders. */
export async function findByAddress(db: Db, email: string): Promise<{ customerIds: number[]; orderIds: number[]; names: string[]; addresses: string[] }> {
  const rows = await queryRows<{ id: number; name: string; surname: string; email: string; order_id: string | number | null }>(
    db,
    sql`SELECT c.id, c.name, c.surname, c.email, o.id AS order_id
        FROM customers c LEFT JOIN orders o ON o.customer_id = c.id
        WHERE lower(c.email) = lower(${email})`,
  );
  const payments = await queryRows<{ order_id: string | number; buyer_name: string; buyer_surname: string; buyer_email: string }>(
    db,
    sql`SELECT order_id, buyer_name, buyer_surname, buyer_email FROM payments WHERE lower(buyer_email) = lower(${email})`,
  );
  return {
    customerIds: [...new Set(rows.map((r) => r.id))],
    orderIds: [...new Set([...rows.filter((r) => r.order_id !== null).map((r) => Number(r.order_id)), ...payments.map((p) => Number(p.order_id))])],
    names: namesOf([...rows.map((r) => [r.name, r.surname] as const), ...payments.map((p) => [p.buyer_name, p.buyer_surname] as const)]),
    addresses: [...new Set([email, ...rows.map((r) => r.email), ...payments.map((p) => p.buyer_email)])],
  };
}

/** Orders of organisers with automatic erasure whose every session ended (or started) more than their days ago. */
export async function findDueForErasure(db: Db, now: Date, limit: number): Promise<{ customerIds: number[]; orderIds: number[]; names: string[]; addresses: string[] }> {
  const rows = await queryRows<{ customer_id: number; order_id: string | number; name: string; surname: string; email: string }>(
    db,
    sql`SELECT c.id AS customer_id, o.id AS order_id, c.name, c.surname, c.email
        FROM orders o
        JOIN customers c ON c.id = o.customer_id
        JOIN sales_channels ch ON ch.id = o.channel_id
        JOIN organiser_privacy p ON p.organiser_id = ch.organiser_id
        WHERE c.email NOT LIKE '%@erased.invalid'
          AND NOT EXISTS (
            SELECT 1 FROM order_items i JOIN sessions s ON s.id = i.session_id
            WHERE i.order_id = COALESCE(o.refunded_order_id, o.id)
              AND COALESCE(s.end_datetime, s.start_datetime) + make_interval(days => p.erase_after_days) > ${now})
        ORDER BY o.id
        LIMIT ${limit}`,
  );
  return {
    customerIds: [...new Set(rows.map((r) => r.customer_id))],
    orderIds: rows.map((r) => Number(r.order_id)),
    names: namesOf(rows.map((r) => [r.name, r.surname] as const)),
    addresses: [...new Set(rows.map((r) => r.email))],
  };
}

function namesOf(pairs: (readonly [string, string])[]): string[] {
  const names = new Set<string>();
  for (const [name, surname] of pairs) {
    const full = `${name} ${surname}`.trim();
    // The full name first, so that "Ana García" is replaced whole before "Ana" alone; a name of
    // one or two letters alone would match inside unrelated words and is only replaced as part of the full name.
    if (full && full !== ERASED_NAME) names.add(full);
    for (const part of [surname, name]) if (part && part.length > 2 && part !== ERASED_NAME) names.add(part);
  }
  return [...names].sort((a, b) => b.length - a.length);
}

/**
 * Overwrites every personal field of the target in one transaction (the caller's): buyer fields
 * become ERASED_NAME and the replacement address; free text quoting one of the addresses has the
 * addresses and the names replaced. Amounts, seats, tickets and their secrets are untouched.
 */
export async function erase(tx: Db, target: ErasureTarget): Promise<ErasureCounts> {
  const lowered = target.scope === 'address' ? target.addresses.map((a) => a.toLowerCase()) : [];
  const addressPattern = target.addresses.length ? `(${target.addresses.map(regexEscape).join('|')})` : null;
  const namePattern = target.names.length ? `(${target.names.map(regexEscape).join('|')})` : null;
  const customers = await queryRows<{ id: number }>(
    tx,
    sql`UPDATE customers SET name = ${ERASED_NAME}, surname = '', email = ${target.replacement}, phone = NULL
        WHERE id = ANY(${`{${target.customerIds.join(',')}}`}::int[]) RETURNING id`,
  );
  const payments = await queryRows<{ id: string }>(
    tx,
    sql`UPDATE payments SET buyer_name = ${ERASED_NAME}, buyer_surname = '', buyer_email = ${target.replacement}, buyer_phone = NULL
        WHERE lower(buyer_email) = ANY(${toArray(lowered)}::text[]) OR order_id = ANY(${toArray(target.orderIds)}::bigint[]) RETURNING id`,
  );
  const emails = await queryRows<{ id: string }>(
    tx,
    sql`UPDATE email_outbox SET recipient = ${target.replacement}
        WHERE lower(recipient) = ANY(${toArray(lowered)}::text[]) OR order_id = ANY(${toArray(target.orderIds)}::bigint[]) RETURNING id`,
  );
  // D69: the buyer's waiting-list entries (an offer's order is one of the erased orders).
  await tx.execute(sql`UPDATE waiting_list_entries SET email = ${target.replacement}, name = NULL
                       WHERE lower(email) = ANY(${toArray(lowered)}::text[]) OR offer_order_id = ANY(${toArray(target.orderIds)}::bigint[])`);
  let logEntries = 0;
  if (addressPattern) {
    for (const { table, column, type } of SCRUBBED) {
      const col = sql.raw(`"${column}"`);
      const asText: SQL = type === 'text' ? col : sql`${col}::text`;
      let scrubbed: SQL = sql`regexp_replace(${asText}, ${addressPattern}, ${target.replacement}, 'gi')`;
      if (namePattern) scrubbed = sql`regexp_replace(${scrubbed}, ${namePattern}, ${ERASED_NAME}, 'g')`;
      const value = type === 'text' ? scrubbed : sql`${scrubbed}::${sql.raw(type)}`;
      const changed = await queryRows<{ n: number }>(
        tx,
        sql`WITH changed AS (
              UPDATE ${sql.raw(table)} SET ${col} = ${value}
              WHERE ${asText} ~* ${addressPattern} RETURNING 1)
            SELECT count(*)::int AS n FROM changed`,
      );
      logEntries += changed[0]?.n ?? 0;
    }
  }
  // The audit entries about the erased orders name the buyer without quoting the address (a
  // reservation's buyer): their names go too.
  if (namePattern && target.orderIds.length) {
    const changed = await queryRows<{ n: number }>(
      tx,
      sql`WITH changed AS (
            UPDATE audit_log SET details = regexp_replace(details::text, ${namePattern}, ${ERASED_NAME}, 'g')::jsonb
            WHERE target_type = 'order' AND target_id IN (SELECT reference FROM orders WHERE id = ANY(${toArray(target.orderIds)}::bigint[]))
              AND details::text ~ ${namePattern}
            RETURNING 1)
          SELECT count(*)::int AS n FROM changed`,
    );
    logEntries += changed[0]?.n ?? 0;
  }
  return { customers: customers.length, orders: target.orderIds.length, payments: payments.length, emails: emails.length, log_entries: logEntries };
}

const toArray = (values: readonly (string | number)[]) => `{${values.map((v) => `"${String(v).replace(/["\\]/g, '\\$&')}"`).join(',')}}`;

/** The organiser's automatic erasure, in days after its sessions; null = never. */
export async function retentionOf(db: Db, organiserId: number): Promise<number | null> {
  const rows = await queryRows<{ erase_after_days: number }>(db, sql`SELECT erase_after_days FROM organiser_privacy WHERE organiser_id = ${organiserId}`);
  return rows[0]?.erase_after_days ?? null;
}

export async function setRetention(db: Db, organiserId: number, days: number | null, now: Date): Promise<void> {
  if (days === null) await db.execute(sql`DELETE FROM organiser_privacy WHERE organiser_id = ${organiserId}`);
  else
    await db.execute(sql`INSERT INTO organiser_privacy (organiser_id, erase_after_days, updated_at) VALUES (${organiserId}, ${days}, ${now})
                         ON CONFLICT (organiser_id) DO UPDATE SET erase_after_days = EXCLUDED.erase_after_days, updated_at = EXCLUDED.updated_at`);
}

// The export speaks the API's language, not the table's: instants as ISO 8601 with a UTC offset
// (D12; PGlite hands timestamptz over as PostgreSQL's text, "2026-12-07 04:20:14.185+00") and
// amounts in the currency's units with at most two decimals (D11), as every other answer.
const iso = (column: SQL) => sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"')`;
const amount = (minor: SQL) => sql`(${minor} / 100.0)::float8`;

/** A buyer's data as kept: orders (with items and tickets), card payments and e-mails sent (D68 export). */
export async function personalDataOf(db: Db, email: string) {
  const orders = await queryRows<Record<string, unknown>>(
    db,
    sql`SELECT o.reference, o.type, o.status, o.lang, o.currency, ${iso(sql`o.created_at`)} AS created_at, ${iso(sql`o.completed_at`)} AS completed_at,
               ch.name AS channel, c.name, c.surname, c.email, c.phone, ${amount(sql`o.base_amount`)} AS base_amount,
               ${amount(sql`o.discount_amount`)} AS discount_amount, ${amount(sql`o.fee_amount`)} AS fee_amount, ${amount(sql`o.total_amount`)} AS total_amount,
               (SELECT COALESCE(json_agg(json_build_object(
                   'session_start', ${iso(sql`s.start_datetime`)}, 'sector', sec.name, 'row', st.row, 'seat', st.number, 'rate', r.name,
                   'total_amount', ${amount(sql`i.total_amount`)}, 'ticket_code', t.code, 'ticket_status', t.status) ORDER BY i.id), '[]'::json)
                FROM order_items i
                ${itemPlaceJoins({ session: true })}
                LEFT JOIN tickets t ON t.order_item_id = i.id
                WHERE i.order_id = o.id) AS items
        FROM customers c
        JOIN orders o ON o.customer_id = c.id
        JOIN sales_channels ch ON ch.id = o.channel_id
        WHERE lower(c.email) = lower(${email})
        ORDER BY o.created_at, o.id`,
  );
  const payments = await queryRows<Record<string, unknown>>(
    db,
    sql`SELECT p.id, p.provider, p.status, ${amount(sql`p.amount`)} AS amount, p.currency, p.buyer_name, p.buyer_surname, p.buyer_email, p.buyer_phone,
               ${iso(sql`p.created_at`)} AS created_at,
               o.reference AS order_reference
        FROM payments p JOIN orders o ON o.id = p.order_id
        WHERE lower(p.buyer_email) = lower(${email}) ORDER BY p.created_at`,
  );
  const emails = await queryRows<Record<string, unknown>>(
    db,
    sql`SELECT e.kind, e.status, e.recipient, ${iso(sql`e.created_at`)} AS created_at, ${iso(sql`e.sent_at`)} AS sent_at, o.reference AS order_reference
        FROM email_outbox e LEFT JOIN orders o ON o.id = e.order_id
        WHERE lower(e.recipient) = lower(${email}) ORDER BY e.created_at, e.id`,
  );
  return { orders, payments, emails };
}

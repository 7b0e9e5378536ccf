import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { eventTextSql, languageChain, translatedName } from '../../platform/i18n.js';
import { itemPlaceJoins } from '../../db/ticket-place.js';
import type { DbTime } from '../../db/instants.js';

/** What a ticket's QR code is made from (qrSecretOf): its code, or the fields its signed secret carries. */
export interface SecretSource {
  id: number;
  code: string;
  sessionId: number;
  issueVersion: number;
  secretFormat: 1 | 2;
  signingKid: string | null;
}

/** Everything printed on one ticket. */
export interface TicketDocument extends SecretSource {
  status: 'valid' | 'void';
  orderId: number;
  orderReference: string;
  /** The buyer's order page is /{channelSlug}/{lang}/orders/{orderToken} when the channel's model has one. */
  orderToken: string;
  channelSlug: string;
  integrationMode: string;
  /** The channel's brand: name and primary colour (#rrggbb) when set. */
  brandName: string | null;
  brandColour: string | null;
  /** The organiser's box office address (Reply-To of the buyer's e-mails), when set. */
  replyTo?: string | null;
  /** The whole order's total in minor units (the item's own is totalAmount). */
  orderTotal: number;
  lang: string;
  currency: string;
  buyerName: string | null;
  buyerEmail: string | null;
  eventName: string;
  sessionStart: Date;
  sessionEnd: Date | null;
  venueName: string;
  venueAddress: string | null;
  venueCity: string | null;
  sectorName: string;
  numbered: boolean;
  row: string | null;
  seatNumber: string | null;
  sessionSeatId: number;
  rateName: string;
  totalAmount: number;
  /** The last change its wallet pass shows (refund, reissue; else its issue): the pass's Last-Modified (D70). Always set when read from the database. */
  passUpdatedAt?: Date;
}

interface TicketRow {
  id: string | number;
  code: string;
  session_id: number;
  issue_version: number;
  secret_format: number;
  signing_kid: string | null;
  status: 'valid' | 'void';
  order_id: string | number;
  reference: string;
  order_token: string;
  channel_slug: string;
  integration_mode: string;
  brand_name: string | null;
  brand_colour: string | null;
  reply_to: string | null;
  order_total: number;
  lang: string;
  currency: string;
  name: string | null;
  surname: string | null;
  email: string | null;
  event_name: string;
  default_lang: string;
  start_datetime: string | Date;
  end_datetime: string | Date | null;
  venue_name: string;
  venue_address: string | null;
  venue_city: string | null;
  sector_name: string;
  numbered: boolean;
  row: string | null;
  number: string | null;
  session_seat_id: number;
  rate_name: string;
  rate_names: Record<string, string> | null;
  total_amount: number;
  pass_updated_at: string | Date;
}

function ticketQuery(where: SQL): SQL {
  return sql`
    SELECT t.id, t.code, i.session_id, t.issue_version, t.secret_format, t.signing_kid, t.status, t.order_id, o.reference, o.order_token,
      ch.slug AS channel_slug, ch.integration_mode,
      NULLIF(ch.branding->>'name', '') AS brand_name, NULLIF(ch.branding->>'primary_color', '') AS brand_colour,
      (SELECT org.reply_to_email FROM organisers org WHERE org.id = e.organiser_id) AS reply_to,
      o.total_amount AS order_total, o.lang, o.currency, c.name, c.surname, c.email,
      COALESCE(${eventTextSql('name', sql`e.id`, sql`o.lang`, sql`e.default_lang`)}, '') AS event_name,
      e.default_lang, s.start_datetime, s.end_datetime, v.name AS venue_name, v.address AS venue_address, v.city AS venue_city,
      sec.name AS sector_name, sec.numbered, st.row, st.number, i.session_seat_id,
      r.name AS rate_name, r.names AS rate_names, i.total_amount, COALESCE(t.pass_updated_at, t.issued_at) AS pass_updated_at
    FROM tickets t
    JOIN orders o ON o.id = t.order_id
    JOIN sales_channels ch ON ch.id = o.channel_id
    JOIN order_items i ON i.id = t.order_item_id
    ${itemPlaceJoins({ event: true, venue: true })}
    LEFT JOIN customers c ON c.id = o.customer_id
    WHERE ${where}
    ORDER BY t.order_item_id`;
}

function toDocument(r: TicketRow): TicketDocument {
  return {
    id: Number(r.id),
    code: r.code,
    sessionId: r.session_id,
    issueVersion: r.issue_version,
    secretFormat: r.secret_format === 1 ? 1 : 2,
    signingKid: r.signing_kid,
    status: r.status,
    orderId: Number(r.order_id),
    orderReference: r.reference,
    orderToken: r.order_token,
    channelSlug: r.channel_slug,
    integrationMode: r.integration_mode,
    brandName: r.brand_name,
    brandColour: r.brand_colour && /^#[0-9a-fA-F]{6}$/.test(r.brand_colour) ? r.brand_colour : null,
    replyTo: r.reply_to,
    orderTotal: Number(r.order_total),
    lang: r.lang,
    currency: r.currency,
    buyerName: r.name === null ? null : `${r.name} ${r.surname ?? ''}`.trim(),
    buyerEmail: r.email,
    eventName: r.event_name,
    sessionStart: new Date(r.start_datetime),
    sessionEnd: r.end_datetime === null ? null : new Date(r.end_datetime),
    venueName: r.venue_name,
    venueAddress: r.venue_address,
    venueCity: r.venue_city,
    sectorName: r.sector_name,
    numbered: r.numbered,
    row: r.row,
    seatNumber: r.number,
    sessionSeatId: r.session_seat_id,
    rateName: translatedName(r.rate_name, r.rate_names, languageChain(r.lang, r.default_lang)),
    totalAmount: r.total_amount,
    passUpdatedAt: new Date(r.pass_updated_at),
  };
}

export async function ticketByCode(db: Db, code: string): Promise<TicketDocument | null> {
  const rows = await queryRows<TicketRow>(db, ticketQuery(sql`t.code = ${code}`));
  return rows[0] ? toDocument(rows[0]) : null;
}

export async function ticketById(db: Db, id: number): Promise<TicketDocument | null> {
  const rows = await queryRows<TicketRow>(db, ticketQuery(sql`t.id = ${id}`));
  return rows[0] ? toDocument(rows[0]) : null;
}

export async function ticketsOfOrder(db: Db, orderId: number): Promise<TicketDocument[]> {
  const rows = await queryRows<TicketRow>(db, ticketQuery(sql`t.order_id = ${orderId}`));
  return rows.map(toDocument);
}

/** Codes of an order's tickets in item order (the order of ticket_pdf_urls). */
/** An order's ticket as its page lists it: the item it is for, and whether a refund voided it. */
export interface OrderTicketRow {
  id: number;
  itemId: number;
  code: string;
  status: 'valid' | 'void';
  voidedAt: Date | null;
}

/** The tickets of an order, in item order. */
export async function ticketsOfOrderItems(db: Db, orderId: number): Promise<OrderTicketRow[]> {
  const rows = await queryRows<{ id: string | number; order_item_id: string | number; code: string; status: 'valid' | 'void'; voided_at: DbTime | null }>(
    db,
    sql`SELECT id, order_item_id, code, status, voided_at FROM tickets WHERE order_id = ${orderId} ORDER BY order_item_id`,
  );
  return rows.map((r) => ({ id: Number(r.id), itemId: Number(r.order_item_id), code: r.code, status: r.status, voidedAt: r.voided_at === null ? null : new Date(r.voided_at) }));
}

/** Voids every valid ticket of an order; returns how many. */
export async function voidTickets(db: Db, ticketIds: number[], at: Date): Promise<number> {
  if (ticketIds.length === 0) return 0;
  const rows = await queryRows<{ id: number }>(
    db,
    sql`UPDATE tickets SET status = 'void', voided_at = ${at}
         WHERE id IN (${sql.join(ticketIds.map((id) => sql`${id}`), sql`, `)}) AND status = 'valid' RETURNING id`,
  );
  return rows.length;
}

/** The id of the order with this token, or null. */
export async function orderIdByToken(db: Db, orderToken: string): Promise<number | null> {
  const rows = await queryRows<{ id: string | number }>(db, sql`SELECT id FROM orders WHERE order_token = ${orderToken}`);
  return rows[0] ? Number(rows[0].id) : null;
}

export interface LookupOrder {
  orderId: number;
  orderToken: string;
  reference: string;
  lang: string;
  integrationMode: string;
  channelSlug: string;
  eventName: string;
  sessionStart: Date;
  sessionEnd: Date | null;
}

/** The completed orders of a channel bought with this e-mail address (any case), newest first. */
export async function ordersOfBuyer(db: Db, channelId: number, email: string, limit = 20): Promise<LookupOrder[]> {
  const rows = await queryRows<{ id: string | number; order_token: string; reference: string; lang: string; integration_mode: string; slug: string; event_name: string; start_datetime: string | Date; end_datetime: string | Date | null }>(
    db,
    sql`SELECT o.id, o.order_token, o.reference, o.lang, ch.integration_mode, ch.slug,
          COALESCE(${eventTextSql('name', sql`e.id`, sql`o.lang`, sql`e.default_lang`)}, '') AS event_name, s.start_datetime, s.end_datetime
        FROM orders o
        JOIN customers c ON c.id = o.customer_id
        JOIN sales_channels ch ON ch.id = o.channel_id
        JOIN LATERAL (SELECT i.event_id, i.session_id FROM order_items i WHERE i.order_id = o.id ORDER BY i.id LIMIT 1) first ON true
        JOIN events e ON e.id = first.event_id
        JOIN sessions s ON s.id = first.session_id
        WHERE o.channel_id = ${channelId} AND o.status = 'completed' AND lower(c.email) = lower(${email})
          AND EXISTS (SELECT 1 FROM tickets t WHERE t.order_id = o.id)
        ORDER BY o.id DESC
        LIMIT ${limit}`,
  );
  return rows.map((r) => ({
    orderId: Number(r.id),
    orderToken: r.order_token,
    reference: r.reference,
    lang: r.lang,
    integrationMode: r.integration_mode,
    channelSlug: r.slug,
    eventName: r.event_name,
    sessionStart: new Date(r.start_datetime),
    sessionEnd: r.end_datetime === null ? null : new Date(r.end_datetime),
  }));
}

/** The box office address of a channel's organiser (Reply-To), or null. */
export async function replyToOfChannel(db: Db, channelId: number): Promise<string | null> {
  const rows = await queryRows<{ reply_to_email: string | null }>(
    db,
    sql`SELECT org.reply_to_email FROM sales_channels ch JOIN organisers org ON org.id = ch.organiser_id WHERE ch.id = ${channelId}`,
  );
  return rows[0]?.reply_to_email ?? null;
}

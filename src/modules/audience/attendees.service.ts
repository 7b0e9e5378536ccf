import { Readable } from 'node:stream';
import type { AppContext } from '../../app-context.js';
import { CSV_BOM, csvLine } from '../../lib/csv.js';
import { toAmount } from '../../lib/money.js';
import { isoWithOffset } from '../../lib/time.js';
import { wallClock, xlsxStream, type XlsxKind } from '../../lib/xlsx.js';
import type { Actor } from '../../platform/actor.js';
import { getSessionFor } from '../catalogue/catalogue-admin.service.js';
import { attendeesPage, type AttendeeRow } from './attendees.repo.js';
import { ATTENDEE_CSV_COLUMNS } from './audience.schemas.js';

/** An attendee as the admin API answers it (D67): amounts in the currency, times with an offset. */
export interface AttendeeView extends Omit<AttendeeRow, 'purchased_at' | 'checked_in_at'> {
  purchased_at: string;
  checked_in: boolean;
  checked_in_at: string | null;
}

const view = (r: AttendeeRow): AttendeeView => ({
  ticket_id: r.ticket_id,
  ticket_code: r.ticket_code,
  holder_name: r.holder_name,
  holder_surname: r.holder_surname,
  email: r.email,
  phone: r.phone,
  lang: r.lang,
  sector: r.sector,
  row: r.row,
  seat: r.seat,
  rate: r.rate,
  channel: r.channel,
  order_reference: r.order_reference,
  total_amount: toAmount(r.total_amount),
  purchased_at: isoWithOffset(r.purchased_at)!,
  checked_in: r.checked_in_at !== null,
  checked_in_at: isoWithOffset(r.checked_in_at),
});

/** Rows read per statement while exporting: memory stays flat whatever the session's size. */
const EXPORT_PAGE = 1000;

export interface AttendeeQuery {
  search?: string;
  after_id?: number;
  limit?: number;
}

/** One page of a session's attendees (valid tickets), for the JSON answer and the dashboard list. */
export async function listAttendeesFor(ctx: AppContext, actor: Actor, sessionId: number, query: AttendeeQuery): Promise<AttendeeView[]> {
  await getSessionFor(ctx, actor, sessionId);
  const rows = await attendeesPage(ctx.db, {
    sessionId,
    afterId: query.after_id ?? 0,
    limit: query.limit ?? 500,
    search: query.search?.trim() || null,
  });
  return rows.map(view);
}

/** A download: its stream and its file name (what, which session, the session's day). */
export interface AttendeeDownload {
  stream: Readable;
  fileName: string;
}

/**
 * Every attendee of a session, page after page (the downloads stream these). Visibility is checked
 * before the first row, so that a refused export fails with its 404 before any byte is sent.
 */
async function attendeeExportFor(ctx: AppContext, actor: Actor, sessionId: number, extension: 'csv' | 'xlsx', search?: string) {
  const session = await getSessionFor(ctx, actor, sessionId);
  const day = wallClock(new Date(session.start_datetime), ctx.config.timezone).toISOString().slice(0, 10);
  const pages = (async function* pages(): AsyncGenerator<AttendeeView[]> {
    let afterId = 0;
    for (;;) {
      const rows = await attendeesPage(ctx.db, { sessionId, afterId, limit: EXPORT_PAGE, search: search?.trim() || null });
      if (rows.length === 0) return;
      yield rows.map(view);
      afterId = rows[rows.length - 1]!.ticket_id;
      if (rows.length < EXPORT_PAGE) return;
    }
  })();
  return { pages, fileName: `attendees_session-${sessionId}_${day}.${extension}` };
}

/**
 * Every attendee of a session as a CSV stream (UTF-8 with a byte-order mark, so that spreadsheets
 * read accents right; `;` and a decimal comma for spreadsheets that write decimals with a comma).
 */
export async function attendeeCsvFor(ctx: AppContext, actor: Actor, sessionId: number, opts: { search?: string; separator?: ',' | ';' } = {}): Promise<AttendeeDownload> {
  const { pages, fileName } = await attendeeExportFor(ctx, actor, sessionId, 'csv', opts.search);
  const separator = opts.separator ?? ',';
  const stream = Readable.from(
    (async function* csv() {
      yield CSV_BOM + csvLine(ATTENDEE_CSV_COLUMNS, separator);
      for await (const page of pages) yield page.map((row) => csvLine(ATTENDEE_CSV_COLUMNS.map((c) => row[c]), separator)).join('');
    })(),
  );
  return { stream, fileName };
}

/** The type of each attendee column in the XLSX download (the others are text). */
const XLSX_KINDS: Partial<Record<(typeof ATTENDEE_CSV_COLUMNS)[number], XlsxKind>> = {
  total_amount: 'amount',
  purchased_at: 'datetime',
  checked_in: 'boolean',
  checked_in_at: 'datetime',
};

/** The same rows as the CSV as an XLSX workbook, streamed: amounts, dates and check-in typed. */
export async function attendeeXlsxFor(ctx: AppContext, actor: Actor, sessionId: number, opts: { search?: string } = {}): Promise<AttendeeDownload> {
  const { pages, fileName } = await attendeeExportFor(ctx, actor, sessionId, 'xlsx', opts.search);
  const columns = ATTENDEE_CSV_COLUMNS.map((key) => ({ key, kind: XLSX_KINDS[key] ?? 'text' }));
  const stream = xlsxStream(columns, pages, {
    sheet: 'Attendees',
    timezone: ctx.config.timezone,
    currency: ctx.config.currency,
  });
  return { stream, fileName };
}

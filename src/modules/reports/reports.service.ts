import type { AppContext } from '../../app-context.js';
import type { Config } from '../../config.js';
import { AppError, invalidData, SPEC_MESSAGES } from '../../http/errors.js';
import * as repo from './reports.repo.js';
import type { ReportQuery, ReportRow, ReportSummary } from './reports.schemas.js';

/** SPEC Limits: rows per call. */
const REPORT_ROW_LIMIT = 500;
/** SPEC Limits: days between date_from and date_to. Also the width of the window a lone bound opens. */
const MAX_RANGE_DAYS = 90;

const DAY_MS = 24 * 3600 * 1000;

/** The filters of one report call after validation. Days are Y-m-d in the deployment's time zone. */
export interface ReportFilters {
  eventIds: number[] | null;
  dateFrom: string | null;
  dateTo: string | null;
}

/** A Y-m-d calendar day as days since 1970-01-01, or null when malformed or impossible (2026-02-30). */
function dayNumber(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1000) return null;
  const ms = Date.UTC(year, month - 1, day);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return null;
  return ms / DAY_MS;
}

const dayText = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

/**
 * Validates the query (SPEC Errors, D29) and resolves the date window. A lone `date_from` reads the
 * 90 days after it, a lone `date_to` the 90 days before it: the range is never unbounded.
 */
export function reportFilters(query: ReportQuery): ReportFilters {
  const ids = [...(query.event_id ? [query.event_id] : []), ...(query['event_ids[]'] ?? []), ...(query.event_ids ?? [])];
  const errors: Record<string, string[]> = {};
  const from = query.date_from === undefined ? undefined : dayNumber(query.date_from);
  const to = query.date_to === undefined ? undefined : dayNumber(query.date_to);
  if (from === null) errors.date_from = ['must be a date in Y-m-d format'];
  if (to === null) errors.date_to = ['must be a date in Y-m-d format'];
  if (Object.keys(errors).length > 0) throw invalidData(errors);

  let [start, end] = [from ?? null, to ?? null];
  if (start !== null && end !== null) {
    if (start > end) throw invalidData({ date_from: ['must be on or before date_to'] });
    if (end - start > MAX_RANGE_DAYS) {
      throw new AppError('date_range_too_long', SPEC_MESSAGES.dateRangeTooLong, {
        date_to: [`must be at most ${MAX_RANGE_DAYS} days after date_from`],
      });
    }
  } else if (start !== null) {
    end = start + MAX_RANGE_DAYS;
  } else if (end !== null) {
    start = end - MAX_RANGE_DAYS;
  }
  return {
    eventIds: ids.length > 0 ? [...new Set(ids)].sort((a, b) => a - b) : null,
    dateFrom: start === null ? null : dayText(start),
    dateTo: end === null ? null : dayText(end),
  };
}

export interface SalesReport {
  filters: ReportFilters;
  /** JSON text of the envelope's `data`: `{"data": [rows], "summary": {...}}`, built by the database. */
  json: string;
}

/** What the repo selects for validated filters (also used by bench/report.bench.ts for its baseline). */
export function reportSelection(config: Config, channelId: number, lang: string, filters: ReportFilters): repo.ReportSelection {
  return {
    channelId,
    lang,
    timezone: config.timezone,
    currency: config.currency,
    ...filters,
    // D28: with no filter only completed orders; with any filter cancelled ones too.
    includeCancelled: filters.eventIds !== null || filters.dateFrom !== null,
    limit: REPORT_ROW_LIMIT,
  };
}

/** The sales report of one channel (SPEC "Sales report", D28-D30): rows newest first, at most 500. */
export async function salesReport(ctx: AppContext, channelId: number, lang: string, query: ReportQuery): Promise<SalesReport> {
  const filters = reportFilters(query);
  const json = await repo.selectSalesReportJson(ctx.db, reportSelection(ctx.config, channelId, lang, filters));
  return { filters, json };
}

/** The report's rows and summary as values (CSV export, tests). */
export const parseReport = (report: SalesReport): { data: ReportRow[]; summary: ReportSummary } => JSON.parse(report.json);

/** The envelope's short success sentence; it names the window a lone date bound opened. */
export function reportMessage(filters: ReportFilters, timezone: string): string {
  if (filters.dateFrom === null) return 'Sales report retrieved';
  return `Sales report retrieved for ${filters.dateFrom} to ${filters.dateTo} (${timezone})`;
}

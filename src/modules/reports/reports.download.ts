import type { Readable } from 'node:stream';
import type { Config } from '../../config.js';
import { CSV_BOM, csvLine } from '../../lib/csv.js';
import { onePage, xlsxStream, type XlsxKind } from '../../lib/xlsx.js';
import type { ReportFilters } from './reports.service.js';
import { CSV_COLUMNS, type ReportRow } from './reports.schemas.js';

/**
 * RFC 4180 CSV of the report rows: a byte-order mark (without it Excel and LibreOffice read the
 * UTF-8 names as Windows-1252), a header line with the row field names, then one line per row.
 */
export function reportCsv(rows: readonly ReportRow[]): string {
  return CSV_BOM + csvLine(CSV_COLUMNS) + rows.map((row) => csvLine(CSV_COLUMNS.map((c) => row[c]))).join('');
}

/** The type of each report column in the XLSX download (the others are text). */
const XLSX_KINDS: Partial<Record<keyof ReportRow, XlsxKind>> = {
  id: 'integer',
  datetime: 'datetime',
  session_datetime: 'datetime',
  tickets: 'integer',
  base_amount: 'amount',
  discount_amount: 'amount',
  fee_amount: 'amount',
  total_amount: 'amount',
};

/** The same rows as the CSV, as an XLSX workbook: numbers, amounts and dates typed (src/lib/xlsx.ts). */
export const reportXlsx = (rows: readonly ReportRow[], config: Pick<Config, 'timezone' | 'currency'>): Readable =>
  xlsxStream(
    CSV_COLUMNS.map((key) => ({ key, kind: XLSX_KINDS[key] ?? 'text' })),
    onePage(rows),
    { sheet: 'Sales report', timezone: config.timezone, currency: config.currency },
  );

/** The download's file name: the channel and the period read (`latest` without dates, D28). */
export function reportFileName(slug: string, filters: ReportFilters, extension: 'csv' | 'xlsx'): string {
  const period = filters.dateFrom === null ? 'latest' : `${filters.dateFrom}_${filters.dateTo}`;
  return `sales-report_${slug}_${period}.${extension}`;
}

// XLSX downloads (the sales report, attendees), written by exceljs's streaming writer: each row is
// committed to the zip stream as it comes, so a 20,000-ticket export never holds its rows.
//
// Cells keep their types: numbers are numbers, amounts numbers with a currency format, times real
// dates. Excel has no time zones, so a time is written as the wall-clock time of the deployment's
// zone (TIMEZONE) and the column's title names the zone. A text cell is never a formula in XLSX
// (written as an inline string), so unlike CSV nothing needs defusing.
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import type ExcelJS from 'exceljs';
import { wallClock } from './zoned-time.js';

export type XlsxKind = 'text' | 'integer' | 'amount' | 'datetime' | 'boolean';

export interface XlsxColumn<Row> {
  /** The field name: the header's title (as in the CSV and the JSON). */
  key: keyof Row & string;
  kind: XlsxKind;
}

export interface XlsxOptions {
  sheet: string;
  /** IANA zone of the wall-clock times written (the deployment's TIMEZONE). */
  timezone: string;
  /** ISO 4217 code: its symbol is the amounts' format. */
  currency: string;
}

const WIDTH: Record<XlsxKind, number> = { text: 22, integer: 10, amount: 14, datetime: 18, boolean: 10 };

/** `#,##0.00 "€"`: shown with the reader's separators (31,50 € in Spain, 31.50 € in the US). */
function amountFormat(currency: string): string {
  const symbol =
    new Intl.NumberFormat('en', { style: 'currency', currency, currencyDisplay: 'narrowSymbol' }).formatToParts(0).find((p) => p.type === 'currency')?.value ??
    currency;
  return `#,##0.00 "${symbol.replace(/"/g, '')}"`;
}

export { wallClock };

function cellValue(kind: XlsxKind, value: unknown, zone: string): ExcelJS.CellValue {
  if (value === null || value === undefined || value === '') return null;
  switch (kind) {
    case 'datetime':
      return wallClock(value instanceof Date ? value : new Date(String(value)), zone);
    case 'integer':
    case 'amount':
      return Number(value);
    case 'boolean':
      return Boolean(value);
    default:
      return String(value);
  }
}

/**
 * A workbook of one sheet: a header row (the field names; a time column's title names the zone),
 * then every row of every page. Returns the stream at once; the rows are written while it is read,
 * page by page, waiting for the reader when it is slow (memory stays flat). A failure while writing
 * destroys the stream (the answer's status line has gone by then).
 */
export function xlsxStream<Row>(columns: readonly XlsxColumn<Row>[], pages: AsyncIterable<readonly Row[]>, options: XlsxOptions): Readable {
  const out = new PassThrough();
  void (async () => {
    // Loaded on the first download only: the service starts without it (docs/operations.md).
    const { default: Excel } = await import('exceljs');
    const workbook = new Excel.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
    const sheet = workbook.addWorksheet(options.sheet, { views: [{ state: 'frozen', ySplit: 1 }] });
    const money = amountFormat(options.currency);
    sheet.columns = columns.map((c) => ({
      key: c.key,
      header: c.kind === 'datetime' ? `${c.key} (${options.timezone})` : c.key,
      width: WIDTH[c.kind],
      style: c.kind === 'amount' ? { numFmt: money } : c.kind === 'datetime' ? { numFmt: 'yyyy-mm-dd hh:mm:ss' } : {},
    }));
    sheet.getRow(1).font = { bold: true };
    sheet.getRow(1).commit();
    for await (const page of pages) {
      for (const row of page) sheet.addRow(columns.map((c) => cellValue(c.kind, row[c.key], options.timezone))).commit();
      if (out.writableNeedDrain) await once(out, 'drain');
    }
    sheet.commit();
    await workbook.commit();
  })().catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return out;
}

/** Rows already in memory (the 500-row sales report) as the one page of xlsxStream. */
export async function* onePage<T>(rows: readonly T[]): AsyncGenerator<readonly T[]> {
  yield rows;
}

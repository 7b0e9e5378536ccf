import { csvLine } from '../../lib/csv.js';
import { CSV_COLUMNS, type ReportRow } from './reports.schemas.js';

/** RFC 4180 CSV of the report rows: a header line with the row field names, then one line per row. */
export function reportCsv(rows: readonly ReportRow[]): string {
  return csvLine(CSV_COLUMNS) + rows.map((row) => csvLine(CSV_COLUMNS.map((c) => row[c]))).join('');
}

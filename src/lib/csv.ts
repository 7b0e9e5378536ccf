// RFC 4180 CSV pieces shared by every export (the sales report, attendees).

/** Written first in files meant for spreadsheets: without it Excel and LibreOffice read UTF-8 as Windows-1252. */
export const CSV_BOM = '\uFEFF';

// A text cell starting with one of these is read as a formula by spreadsheet programs; customer
// names come from buyers, so such cells get a leading apostrophe (OWASP "CSV injection").
const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: numbers as they are, text quoted when it must be and defused when it starts like a formula. */
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",;\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line of cells, ended by CRLF. */
export const csvLine = (cells: readonly unknown[], separator = ','): string => `${cells.map(csvCell).join(separator)}\r\n`;

/** CSV when asked for by `format=csv`, or by an Accept header naming text/csv (unless format=json). */
export function wantsCsv(format: string | undefined, accept: string | undefined): boolean {
  if (format) return format === 'csv';
  return /(^|[,\s])text\/csv\b/i.test(accept ?? '');
}

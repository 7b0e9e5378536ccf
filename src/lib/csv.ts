// RFC 4180 CSV pieces shared by every export (the sales report, attendees).

/** Written first in files meant for spreadsheets: without it Excel and LibreOffice read UTF-8 as Windows-1252. */
export const CSV_BOM = '\uFEFF';

// A text cell starting with one of these is read as a formula by spreadsheet programs; customer
// names come from buyers, so such cells get a leading apostrophe (OWASP "CSV injection").
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One cell: numbers as they are (with a decimal comma in the semicolon dialect), text quoted when it
 * must be and defused when it starts like a formula.
 */
function csvCell(value: unknown, separator: string): string {
  if (value === null || value === undefined) return '';
  // `;` is the separator of spreadsheets set up for a decimal comma (Spain's Excel and LibreOffice):
  // there `31.5` stays text and SUM skips it, so that dialect writes `31,5`.
  if (typeof value === 'number') return separator === ';' ? String(value).replace('.', ',') : String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",;\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line of cells, ended by CRLF. `;` also writes decimals with a comma (see csvCell). */
export const csvLine = (cells: readonly unknown[], separator: ',' | ';' = ','): string =>
  `${cells.map((cell) => csvCell(cell, separator)).join(separator)}\r\n`;

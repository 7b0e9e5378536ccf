// How a client asks for a file instead of JSON (the sales report, attendees): `format=` wins, else
// the Accept header. One rule for every export, so that CSV and XLSX are asked for the same way.

/** The media type of an XLSX workbook (Office Open XML spreadsheet). */
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export type DownloadFormat = 'json' | 'csv' | 'xlsx';

/**
 * `format=json|csv|xlsx` when given; otherwise XLSX when Accept names the XLSX media type, CSV when
 * it names text/csv (the first of the two it names, so `Accept: text/csv, <xlsx>` is CSV), else JSON.
 */
export function downloadFormat(format: string | undefined, accept: string | undefined): DownloadFormat {
  if (format === 'json' || format === 'csv' || format === 'xlsx') return format;
  const types = (accept ?? '').split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  for (const type of types) {
    if (type === 'text/csv') return 'csv';
    if (type === XLSX_TYPE) return 'xlsx';
  }
  return 'json';
}

/** `attachment; filename="..."` for a download; names are ours (ASCII: slugs, days, ids). */
export const attachment = (fileName: string): string => `attachment; filename="${fileName.replace(/[^\w.-]/g, '_')}"`;

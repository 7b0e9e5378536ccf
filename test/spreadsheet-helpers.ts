// Reading back the XLSX downloads in tests: every cell's value (typed as exceljs reads it) and
// number format, by the header row's titles.
import ExcelJS from 'exceljs';

export interface SheetCell {
  value: ExcelJS.CellValue;
  numFmt: string | undefined;
}

/** The first sheet of a workbook: its header titles and its rows as cells keyed by title. */
export async function readXlsx(body: Buffer): Promise<{ header: string[]; rows: Record<string, SheetCell>[] }> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(body as unknown as ArrayBuffer);
  const sheet = workbook.worksheets[0]!;
  const header = (sheet.getRow(1).values as ExcelJS.CellValue[]).slice(1).map(String);
  const rows: Record<string, SheetCell>[] = [];
  sheet.eachRow((row, n) => {
    if (n === 1) return;
    rows.push(Object.fromEntries(header.map((title, i) => [title, { value: row.getCell(i + 1).value, numFmt: row.getCell(i + 1).numFmt }])));
  });
  return { header, rows };
}

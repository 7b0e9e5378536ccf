/** One row of a table: its columns in order, `null` printed as `-`. */
export type TableRow = Record<string, string | number | null>;

/** Prints rows as a plain text table with a header; empty lists print `empty`. */
export function printTable(rows: TableRow[], empty = '(none)'): void {
  if (rows.length === 0) {
    console.log(empty);
    return;
  }
  const columns = Object.keys(rows[0]!);
  const cell = (v: string | number | null) => (v === null ? '-' : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c] ?? null).length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  console.log(line(columns));
  for (const row of rows) console.log(line(columns.map((c) => cell(row[c] ?? null))));
}

/** Pretty JSON on stdout, for `--json` and scripts. */
export const printJson = (value: unknown) => console.log(JSON.stringify(value, null, 2));

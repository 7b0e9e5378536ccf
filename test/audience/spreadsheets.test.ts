import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, DEMO, serverTokenFor, type TestApp } from '../helpers.js';
import { account } from '../admin/admin-helpers.js';
import { catalogueRefs, insertOrder } from '../reports/report-fixture.js';
import { forgetTokens, sell } from './audience-fixtures.js';

// The downloads opened by a real spreadsheet program: LibreOffice Calc, headless (Debian package
// libreoffice-calc-nogui, installed by .ci/run), set up as in Spain (`;`, decimal comma, es-ES)
// and as in the US (`,`, en-US). Each file is converted to flat ODS (XML), whose cells say what
// Calc made of them: `float` (SUM adds it), `date`, `boolean` or `string` (SUM skips it).
// One soffice start per group of files: three in all.

const run = promisify(execFile);
const inCi = process.env.CI === 'true';

function findSoffice(): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, 'soffice');
    if (fs.existsSync(file)) return file;
  }
  return null;
}
const soffice = findSoffice();
if (!soffice && !inCi) console.warn('test/audience/spreadsheets.test.ts skipped: no soffice (apt-get install libreoffice-calc-nogui); in CI it fails instead');

interface Cell {
  type: string;
  value: string | undefined;
  text: string;
}

/** The first table of a flat ODS file as rows of cells (repeated cells expanded, trailing empties dropped). */
function readFods(file: string): Cell[][] {
  const xml = fs.readFileSync(file, 'utf8');
  const table = /<table:table [\s\S]*?<\/table:table>/.exec(xml)![0];
  const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
  const rows: Cell[][] = [];
  for (const row of table.match(/<table:table-row\b[\s\S]*?<\/table:table-row>/g) ?? []) {
    const cells: Cell[] = [];
    for (const m of row.matchAll(/<table:table-cell\b([^>]*?)(\/>|>([\s\S]*?)<\/table:table-cell>)/g)) {
      const attrs = m[1]!;
      const attr = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(attrs)?.[1];
      const text = [...(m[3] ?? '').matchAll(/<text:p>([\s\S]*?)<\/text:p>/g)].map((p) => unescape(p[1]!.replace(/<[^>]+>/g, ''))).join('\n');
      const cell = { type: attr('office:value-type') ?? 'empty', value: attr('office:date-value') ?? attr('office:value') ?? attr('office:boolean-value'), text };
      const repeat = Math.min(Number(attr('table:number-columns-repeated') ?? 1), 64);
      for (let i = 0; i < repeat; i++) cells.push(cell);
    }
    while (cells.length && cells[cells.length - 1]!.type === 'empty') cells.pop();
    if (cells.length) rows.push(cells);
  }
  return rows;
}

/** The rows of a sheet as records keyed by the header row's texts. */
function records(rows: Cell[][]): Record<string, Cell>[] {
  const header = rows[0]!.map((c) => c.text.replace(/^\uFEFF/, ''));
  return rows.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? { type: 'empty', value: undefined, text: '' }])));
}

/** What Calc's SUM gives over a column: numbers add up, text is skipped. */
const calcSum = (cells: Cell[]) => cells.filter((c) => c.type === 'float' || c.type === 'currency').reduce((a, c) => a + Number(c.value), 0);

describe.skipIf(!soffice && !inCi)('the downloads opened by LibreOffice in Spanish and US settings', () => {
  let t: TestApp;
  let dir: string;
  const out: Record<string, Record<string, Cell>[]> = {};
  let attendeeRef: string;
  const reportRefs: string[] = [];

  /**
   * One soffice start converting `files` to flat ODS; `csv` filter options for CSV inputs. The
   * profile is this run's own (the PGlite and PostgreSQL suites may run this file at once).
   */
  async function convert(files: string[], csv?: string) {
    const args = ['--headless', '--norestore', `-env:UserInstallation=file://${dir}/profile`, ...(csv ? [`--infilter=CSV:${csv}`] : []), '--convert-to', 'fods', '--outdir', path.join(dir, 'out'), ...files];
    await run(soffice!, args, { timeout: 180_000 });
    for (const file of files) out[path.basename(file)] = records(readFods(path.join(dir, 'out', `${path.basename(file, path.extname(file))}.fods`)));
  }

  beforeAll(async () => {
    if (!soffice) throw new Error('soffice is missing: .ci/run installs libreoffice-calc-nogui, which this test needs in CI');
    t = await buildTestApp();
    forgetTokens();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-sheets-'));
    const adminToken = (await account(t.ctx, 'root@taquilla.test')).token;

    // Attendees: two tickets of José Ñúñez, made to cost 31.50 and 57.00 (the 88.5).
    const sale = await sell(t, 'b', { name: 'José', surname: 'Ñúñez', email: 'jose@example.com' }, { seats: 2 });
    attendeeRef = sale.reference;
    await t.ctx.db.execute(sql`
      UPDATE order_items SET total_amount = x.total, base_amount = x.total - fee_amount - discount_amount
      FROM (SELECT id, CASE WHEN id = min(id) OVER () THEN 3150 ELSE 5700 END AS total FROM order_items WHERE order_id = ${sale.orderId}) x
      WHERE order_items.id = x.id`);
    // Report rows (channel D): the same amounts, in March 2025 (11:00 UTC = 12:00 in Madrid).
    const refs = await catalogueRefs(t.ctx.db);
    const d = refs.channels['demo-d']!;
    const buyer = { name: 'José', surname: 'Ñúñez', email: 'jose@example.com' };
    for (const [day, base] of [['2025-03-10', 3150], ['2025-03-11', 5700]] as const) {
      reportRefs.push((await insertOrder(t.ctx.db, { channelId: d, createdAt: `${day}T11:00:00Z`, items: [{ event: refs.events.concert, base }], customer: buyer })).reference);
    }

    const token = await serverTokenFor(t.app, DEMO.d.slug, DEMO.d.serverKey);
    const download = async (url: string, auth: string, file: string) => {
      const res = await t.app.inject({ url, headers: { authorization: `Bearer ${auth}` } });
      expect(res.statusCode, res.body).toBe(200);
      fs.writeFileSync(path.join(dir, file), res.rawPayload);
      return path.join(dir, file);
    };
    const report = (format: string) => `/api/sales-channel/v1/${DEMO.d.slug}/es/reports/sales?date_from=2025-03-01&date_to=2025-03-31&format=${format}`;
    const attendees = (query: string) => `/api/admin/v1/sessions/${sale.sessionId}/attendees?${query}`;
    const files = {
      reportCsv: await download(report('csv'), token, 'report.csv'),
      reportXlsx: await download(report('xlsx'), token, 'report.xlsx'),
      attendeesCsv: await download(attendees('format=csv'), adminToken, 'attendees.csv'),
      attendeesSemicolon: await download(attendees('format=csv&separator=semicolon'), adminToken, 'attendees-es.csv'),
      attendeesXlsx: await download(attendees('format=xlsx'), adminToken, 'attendees.xlsx'),
    };
    // Filter options: separator, quote ("), character set (76 = UTF-8, which Calc's dialog picks
    // from the byte-order mark), first line, column formats (standard), language (1033 en-US, 3082 es-ES).
    await convert([files.reportCsv, files.attendeesCsv], '44,34,76,1,,1033');
    await convert([files.attendeesSemicolon], '59,34,76,1,,3082');
    await convert([files.reportXlsx, files.attendeesXlsx]);
  }, 600_000);

  afterAll(async () => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  const mine = (rows: Record<string, Cell>[], column: string, refs: string[]) => rows.filter((r) => refs.includes(r[column]!.text));

  it('the report CSV in US settings: amounts are numbers (SUM 88.5), ids too, the accents survive', () => {
    const rows = mine(out['report.csv']!, 'order_reference', reportRefs);
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.total_amount!.type)).toEqual(['float', 'float']);
    expect(calcSum(rows.map((r) => r.total_amount!))).toBe(88.5);
    expect(rows.every((r) => r.id!.type === 'float')).toBe(true);
    expect(rows.map((r) => r.customer_name!.text)).toEqual(['José Ñúñez', 'José Ñúñez']);
  });

  it('the attendee CSV in US settings (comma) and in Spanish settings (semicolon, decimal comma): amounts are numbers, names survive', () => {
    for (const file of ['attendees.csv', 'attendees-es.csv']) {
      const rows = mine(out[file]!, 'order_reference', [attendeeRef]);
      expect(rows, file).toHaveLength(2);
      expect(rows.map((r) => r.total_amount!.type), file).toEqual(['float', 'float']);
      expect(calcSum(rows.map((r) => r.total_amount!)), file).toBe(88.5);
      expect(rows.map((r) => `${r.holder_name!.text} ${r.holder_surname!.text}`), file).toEqual(['José Ñúñez', 'José Ñúñez']);
    }
  });

  it('the report XLSX: amounts are numbers, times are dates holding the Madrid wall-clock time, names survive', () => {
    const rows = mine(out['report.xlsx']!, 'order_reference', reportRefs);
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.total_amount!.type)).toEqual(['float', 'float']);
    expect(calcSum(rows.map((r) => r.total_amount!))).toBe(88.5);
    expect(rows.map((r) => r.tickets!.type)).toEqual(['float', 'float']);
    const when = rows.map((r) => r['datetime (Europe/Madrid)']!);
    expect(when.map((c) => c.type)).toEqual(['date', 'date']);
    expect(when.map((c) => c.value).sort()).toEqual(['2025-03-10T12:00:00', '2025-03-11T12:00:00']);
    expect(rows[0]!['session_datetime (Europe/Madrid)']!.type).toBe('date');
    expect(rows.map((r) => r.customer_name!.text)).toEqual(['José Ñúñez', 'José Ñúñez']);
  });

  it('the attendee XLSX: amounts are numbers, purchase times dates, check-in a boolean, names survive', () => {
    const rows = mine(out['attendees.xlsx']!, 'order_reference', [attendeeRef]);
    expect(rows).toHaveLength(2);
    expect(calcSum(rows.map((r) => r.total_amount!))).toBe(88.5);
    expect(rows.map((r) => r['purchased_at (Europe/Madrid)']!.type)).toEqual(['date', 'date']);
    // Calc keeps an XLSX boolean as the number 0 or 1 shown as FALSE or TRUE.
    expect(rows.map((r) => [r.checked_in!.value, r.checked_in!.text])).toEqual([
      ['0', expect.stringMatching(/^(FALSE|FALSO)$/)],
      ['0', expect.stringMatching(/^(FALSE|FALSO)$/)],
    ]);
    expect(rows.map((r) => `${r.holder_name!.text} ${r.holder_surname!.text}`)).toEqual(['José Ñúñez', 'José Ñúñez']);
  });
});

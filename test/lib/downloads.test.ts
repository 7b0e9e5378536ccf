import { describe, expect, it } from 'vitest';
import { csvLine } from '../../src/lib/csv.js';
import { attachment, downloadFormat, XLSX_TYPE } from '../../src/lib/download.js';
import { wallClock, xlsxStream } from '../../src/lib/xlsx.js';
import { readXlsx } from '../spreadsheet-helpers.js';

describe('CSV cells', () => {
  it('the comma dialect writes a decimal point, the semicolon dialect a decimal comma', () => {
    expect(csvLine(['José Ñúñez', 31.5, -57, 2, null, true])).toBe('José Ñúñez,31.5,-57,2,,true\r\n');
    expect(csvLine(['José Ñúñez', 31.5, -57, 2, null, true], ';')).toBe('José Ñúñez;31,5;-57;2;;true\r\n');
    expect(csvLine(['a;b', '=1+1'], ';')).toBe(`"a;b";'=1+1\r\n`);
  });
});

describe('downloadFormat', () => {
  it('format= wins; else the first of text/csv and the XLSX type that Accept names; else JSON', () => {
    expect(downloadFormat('json', 'text/csv')).toBe('json');
    expect(downloadFormat('xlsx', 'text/csv')).toBe('xlsx');
    expect(downloadFormat(undefined, 'text/csv')).toBe('csv');
    expect(downloadFormat(undefined, `${XLSX_TYPE}`)).toBe('xlsx');
    expect(downloadFormat(undefined, `application/json, ${XLSX_TYPE};q=0.8, text/csv;q=0.5`)).toBe('xlsx');
    expect(downloadFormat(undefined, 'Text/CSV; charset=utf-8')).toBe('csv');
    expect(downloadFormat(undefined, 'text/csvx, */*')).toBe('json');
    expect(downloadFormat(undefined, undefined)).toBe('json');
  });

  it('attachment names keep only safe characters', () => {
    expect(attachment('sales-report_demo-d_2025-01-01_2025-03-31.xlsx')).toBe('attachment; filename="sales-report_demo-d_2025-01-01_2025-03-31.xlsx"');
    expect(attachment('a"b\r\n.csv')).toBe('attachment; filename="a_b__.csv"');
  });
});

describe('XLSX', () => {
  it('wall-clock time of the zone, across both daylight-saving changes', () => {
    expect(wallClock(new Date('2025-03-30T00:59:59Z'), 'Europe/Madrid')).toEqual(new Date('2025-03-30T01:59:59Z'));
    expect(wallClock(new Date('2025-03-30T01:00:00Z'), 'Europe/Madrid')).toEqual(new Date('2025-03-30T03:00:00Z'));
    expect(wallClock(new Date('2025-10-26T00:30:00Z'), 'Europe/Madrid')).toEqual(new Date('2025-10-26T02:30:00Z'));
    expect(wallClock(new Date('2025-10-26T01:30:00Z'), 'Europe/Madrid')).toEqual(new Date('2025-10-26T02:30:00Z'));
    expect(wallClock(new Date('2025-01-01T00:00:00Z'), 'America/New_York')).toEqual(new Date('2024-12-31T19:00:00Z'));
  });

  it('typed cells over several pages: numbers, amounts with the currency format, dates, booleans, empty cells', async () => {
    type Row = { name: string; n: number; amount: number; at: string | null; ok: boolean };
    async function* pages(): AsyncGenerator<Row[]> {
      yield [{ name: 'José Ñúñez', n: 1, amount: 31.5, at: '2025-07-01T10:00:00+00:00', ok: true }];
      yield [{ name: '=SUM(A1)', n: 2, amount: 57, at: null, ok: false }];
    }
    const stream = xlsxStream(
      [
        { key: 'name', kind: 'text' },
        { key: 'n', kind: 'integer' },
        { key: 'amount', kind: 'amount' },
        { key: 'at', kind: 'datetime' },
        { key: 'ok', kind: 'boolean' },
      ],
      pages(),
      { sheet: 'Test', timezone: 'Europe/Madrid', currency: 'USD' },
    );
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const { header, rows } = await readXlsx(Buffer.concat(chunks));
    expect(header).toEqual(['name', 'n', 'amount', 'at (Europe/Madrid)', 'ok']);
    expect(rows.map((r) => [r.name!.value, r.n!.value, r.amount!.value, r['at (Europe/Madrid)']!.value, r.ok!.value])).toEqual([
      ['José Ñúñez', 1, 31.5, new Date('2025-07-01T12:00:00Z'), true],
      ['=SUM(A1)', 2, 57, null, false],
    ]);
    expect(rows[0]!.amount!.numFmt).toBe('#,##0.00 "$"');
    expect(rows[0]!['at (Europe/Madrid)']!.numFmt).toBe('yyyy-mm-dd hh:mm:ss');
  });

  it('a failure while writing destroys the stream', async () => {
    async function* pages(): AsyncGenerator<{ a: string }[]> {
      yield [{ a: 'x' }];
      throw new Error('database gone');
    }
    const stream = xlsxStream([{ key: 'a', kind: 'text' }], pages(), { sheet: 'T', timezone: 'UTC', currency: 'EUR' });
    await expect(
      (async () => {
        for await (const chunk of stream) void chunk;
      })(),
    ).rejects.toThrow('database gone');
  });
});

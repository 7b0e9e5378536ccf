import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fontRuns, renderTicketPdf, renderTicketsPdf } from '../../src/modules/tickets/tickets.pdf.js';
import type { TicketDocument } from '../../src/modules/tickets/tickets.repo.js';

// Issue 31 item 5: holder names in every script print as written, in an embedded font (checked with
// poppler's pdffonts and pdftotext, as the issue did).

const ticket: TicketDocument = {
  id: 1, code: 'Ab3dEf6hIj9kLm2nOp5qRs8t', sessionId: 1, issueVersion: 1, secretFormat: 2, signingKid: null, status: 'valid',
  orderId: 1, orderReference: 'TQ-7Q2K', orderToken: 'tok', channelSlug: 'demo-a', integrationMode: 'portal_only',
  brandName: null, brandColour: null, orderTotal: 3150, lang: 'es', currency: 'EUR', buyerName: 'Ana', buyerEmail: null,
  eventName: 'Concierto', sessionStart: new Date('2026-12-31T20:00:00Z'), sessionEnd: null, venueName: 'Teatro', venueAddress: 'Calle Mayor 1',
  venueCity: 'Madrid', sectorName: 'Platea', numbered: true, row: 'A', seatNumber: '7', sessionSeatId: 1, rateName: 'General', totalAmount: 3150,
};

const hasPoppler = (() => {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
// .ci/run installs poppler-utils: in CI a missing pdftotext fails these tests instead of skipping them.
const skipWithoutPoppler = !hasPoppler && !process.env.CI;

function poppler(pdf: Buffer) {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ticket-')), 't.pdf');
  fs.writeFileSync(file, pdf);
  const text = execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
  const fonts = execFileSync('pdffonts', [file], { encoding: 'utf8' });
  const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [file], { encoding: 'utf8' }))![1]);
  return { text, fonts, pages };
}

// In this order on purpose: the ticket renderer shares parsed fonts between documents, and the Greek
// name's subset reaches Cyrillic П through a composite glyph; the Cyrillic name must still extract.
const NAMES = ['José Núñez Ibáñez', 'Γιώργος Παπαδόπουλος', 'Иван Петрович', '山田 太郎', '王小明', 'محمد علي', 'Taro 山田'];

describe('ticket PDF in every script', () => {
  it('splits a text into runs of one font each', () => {
    expect(fontRuns('Taro 山田 太郎')).toEqual([
      { cjk: false, text: 'Taro ' },
      { cjk: true, text: '山田 太郎' },
    ]);
    expect(fontRuns('محمد')).toEqual([{ cjk: false, text: 'محمد' }]);
  });

  it.skipIf(skipWithoutPoppler)('prints Latin, Greek, Cyrillic, CJK and Arabic holder names, in embedded fonts only', async () => {
    for (const name of NAMES) {
      const { text, fonts } = poppler(await renderTicketPdf({ ...ticket, buyerName: name }, 'Europe/Madrid', 'tq2.test'));
      // pdftotext marks right-to-left runs with directional characters; the letters come back as written.
      const plain = text.replace(/[\u200e\u200f\u202a-\u202e]/g, '');
      for (const word of name.split(' ')) expect(plain, name).toContain(word);
      // The printed code is there too.
      expect(plain).toContain(ticket.code);
      const rows = fonts.split('\n').slice(2).filter(Boolean);
      expect(rows.length).toBeGreaterThan(0);
      // Every font is embedded (emb = yes) and subset: no Helvetica left.
      for (const row of rows) expect(row, row).toMatch(/\+\S+\s.*\byes\s+yes\s+yes\b/);
      expect(fonts).not.toMatch(/Helvetica/);
    }
  });

  it.skipIf(skipWithoutPoppler)('one PDF of all tickets has one page per ticket', async () => {
    const tickets = ['A', 'B', 'C'].map((seat, i) => ({ ...ticket, id: i + 1, seatNumber: seat, code: `Ab3dEf6hIj9kLm2nOp5qRs8${i}`, qr: `tq2.${i}` }));
    const { text, pages } = poppler(await renderTicketsPdf(tickets, 'Europe/Madrid'));
    expect(pages).toBe(3);
    for (const t of tickets) expect(text).toContain(t.code);
  });
});

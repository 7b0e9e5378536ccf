import fs from 'node:fs';
import path from 'node:path';
import QRCode from 'qrcode';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import { formatDateTime, formatMoney, spokenLanguage, type Language } from '../../platform/i18n.js';
import type { TicketDocument } from './tickets.repo.js';

const LABELS = {
  es: { ticket: 'Entrada', date: 'Fecha', venue: 'Recinto', sector: 'Sector', row: 'Fila', seat: 'Butaca', zone: 'Zona sin numerar', rate: 'Tarifa', price: 'Precio', buyer: 'Titular', order: 'Pedido', code: 'Código', voidNote: 'ANULADA',
    scan: 'Muestra este código en la entrada (impreso o en el móvil).',
    terms: 'Entrada personal válida para una persona y una sola entrada al recinto: el código se anula al pasar el control. No se admiten cambios ni devoluciones salvo cancelación del evento. No la compartas: quien presente primero el código, entra.' },
  en: { ticket: 'Ticket', date: 'Date', venue: 'Venue', sector: 'Sector', row: 'Row', seat: 'Seat', zone: 'Unnumbered zone', rate: 'Rate', price: 'Price', buyer: 'Ticket holder', order: 'Order', code: 'Code', voidNote: 'VOID',
    scan: 'Show this code at the entrance (printed or on your phone).',
    terms: 'Personal ticket valid for one person and one entry: the code is spent at the gate. No exchanges or refunds unless the event is cancelled. Do not share it: whoever shows the code first gets in.' },
} as const satisfies Record<Language, Record<string, string>>;

// Some locales put narrow no-break spaces in dates and prices; a plain space wraps the same on paper.
const plain = (text: string) => text.replace(/[\u202f\u00a0]/g, ' ');

// Embedded fonts (assets/fonts/README.md), so that a holder's name prints in any script buyers use
// (issue 31): DejaVu Sans for Latin, Greek, Cyrillic and Arabic, Droid Sans Fallback for Chinese
// and Japanese. pdfkit embeds only the glyphs a ticket uses. The files are read once per process.
const FONT_DIR = path.join(PROJECT_ROOT, 'assets', 'fonts');
let fontFiles: { regular: Buffer; bold: Buffer; cjk: Buffer } | null = null;
const fonts = () =>
  (fontFiles ??= {
    regular: fs.readFileSync(path.join(FONT_DIR, 'DejaVuSans.ttf')),
    bold: fs.readFileSync(path.join(FONT_DIR, 'DejaVuSans-Bold.ttf')),
    cjk: fs.readFileSync(path.join(FONT_DIR, 'DroidSansFallback-CJK.ttf')),
  });

type Weight = 'regular' | 'bold';
// Han, kana, CJK punctuation and full-width forms: the characters DejaVu Sans has no glyph for.
const CJK = /[\u2e80-\u2fdf\u3000-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/u;

/** The text in runs of one font each: CJK runs in the fallback font, the rest in DejaVu. */
export function fontRuns(text: string): { cjk: boolean; text: string }[] {
  const runs: { cjk: boolean; text: string }[] = [];
  for (const ch of text) {
    // A space between two CJK characters stays in their run (fewer font switches).
    const cjk = CJK.test(ch) || (ch === ' ' && runs.at(-1)?.cjk === true);
    const last = runs.at(-1);
    if (last && last.cjk === cjk) last.text += ch;
    else runs.push({ cjk, text: ch });
  }
  return runs;
}

/**
 * Writes `text` like doc.text, in the embedded fonts: one call when the text needs one font, else
 * its runs chained on one line (pdfkit's `continued`).
 */
function say(doc: PDFKit.PDFDocument, weight: Weight, text: string, x?: number, y?: number, opts: PDFKit.Mixins.TextOptions = {}): void {
  const runs = fontRuns(text);
  if (runs.length <= 1) {
    doc.font(runs[0]?.cjk ? 'cjk' : weight);
    if (x === undefined) doc.text(text, opts);
    else doc.text(text, x, y, opts);
    return;
  }
  runs.forEach((run, i) => {
    doc.font(run.cjk ? 'cjk' : weight);
    const o = { ...opts, continued: i < runs.length - 1 };
    if (i === 0 && x !== undefined) doc.text(run.text, x, y, o);
    else doc.text(run.text, o);
  });
}

/** Session date and time in the deployment's time zone (TIMEZONE), in the order's language. */
export const formatSessionDate = (date: Date, lang: string, timeZone: string): string => plain(formatDateTime(date, lang, timeZone));

const formatPrice = (minor: number, lang: string, currency: string): string => plain(formatMoney(minor, currency, lang));

/** Draws the QR code of `text` as vector squares (no PNG round trip: smaller and faster). */
function drawQr(doc: PDFKit.PDFDocument, text: string, x: number, y: number, size: number): void {
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const n = qr.modules.size;
  const quiet = 2;
  const cell = size / (n + quiet * 2);
  doc.save().rect(x, y, size, size).fill('#ffffff');
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      if (qr.modules.get(r, c)) doc.rect(x + (c + quiet) * cell, y + (r + quiet) * cell, cell, cell);
    }
  }
  doc.fill('#000000').restore();
}

const INK = '#1b1f24';
const MUTED = '#4d5560';
const DEFAULT_BRAND = '#1f4fd1';
/** 1 mm in PDF points. */
const MM = 72 / 25.4;
/** The QR code's side: 45 mm, well above the 35 mm a phone camera reads at arm's length. */
const QR_SIZE = 45 * MM;

const FONT_NAMES = ['regular', 'bold', 'cjk'] as const;
type FontName = (typeof FONT_NAMES)[number];

/** The pdfkit internals that sharing parsed fonts relies on (pdfkit 0.17, pinned by the lock file). */
interface PdfkitFontInternals {
  _font: EmbeddedFont;
  _fontFamilies: Record<string, EmbeddedFont>;
  _fontCount: number;
}
interface EmbeddedFont {
  /** The fontkit font: parsed tables, immutable apart from its caches, and made to give many subsets. */
  font: { _glyphs: Record<number, unknown> };
  /** Word to laid-out glyphs and advances: the same in every document that uses the font. */
  layoutCache: Record<string, unknown>;
  constructor: new (doc: PDFKit.PDFDocument, font: EmbeddedFont['font'], id: string) => EmbeddedFont;
}
type SharedFont = Pick<EmbeddedFont, 'font' | 'layoutCache' | 'constructor'>;
const sharedFonts = new Map<FontName, SharedFont>();
/** Documents since the shared word layouts were last emptied: names and codes differ per ticket. */
let documentsSinceLayoutReset = 0;
const LAYOUT_RESET_EVERY = 1000;

/**
 * pdfkit opens and parses a font file anew for every document, fontkit reads its tables (metrics,
 * GSUB, GPOS) lazily on first use, and pdfkit shapes every word again per document: together about
 * four fifths of a ticket's render time. So the first document's parsed fontkit font and its word
 * layouts are kept, and every later document gets pdfkit's own embedded-font wrapper (its own
 * subset and widths) around them, put where `doc.font(name)` looks first.
 * test/tickets/ticket-pdf-scripts.test.ts checks the fonts embedded and the text in every script.
 */
function useParsedFont(doc: PDFKit.PDFDocument, name: FontName): void {
  const internals = doc as unknown as PdfkitFontInternals;
  const shared = sharedFonts.get(name);
  if (shared) {
    // fontkit caches glyphs with the characters they were first reached from; the last document's
    // subset reached some through composite glyphs, with none (Greek Π is drawn from Cyrillic П),
    // and a glyph without characters is left out of the text a reader extracts. Layouts made again
    // from here on make them anew, with their characters.
    shared.font._glyphs = {};
    const embedded = new shared.constructor(doc, shared.font, `F${++internals._fontCount}`);
    embedded.layoutCache = shared.layoutCache;
    internals._fontFamilies[name] = embedded;
  } else {
    doc.font(name);
    const { font, layoutCache, constructor } = internals._font;
    sharedFonts.set(name, { font, layoutCache, constructor });
  }
}

function resetSharedLayoutsNowAndThen(): void {
  if (++documentsSinceLayoutReset < LAYOUT_RESET_EVERY) return;
  documentsSinceLayoutReset = 0;
  for (const shared of sharedFonts.values()) shared.layoutCache = Object.create(null) as Record<string, unknown>;
}

/** A new PDF document with the ticket fonts registered, and the promise of its bytes. */
async function newDocument(info: { Title: string; Author: string; Subject: string }) {
  // Loaded on the first ticket, not at start: pdfkit is the heaviest module of the service to load.
  const { default: PDFDocument } = await import('pdfkit');
  // No default font: pdfkit would parse Helvetica's metrics for every document, and no text uses it.
  const doc = new PDFDocument({ size: 'A5', layout: 'landscape', margin: 0, autoFirstPage: false, info, font: null as unknown as string });
  const f = fonts();
  resetSharedLayoutsNowAndThen();
  for (const name of FONT_NAMES) {
    doc.registerFont(name, f[name]);
    useParsedFont(doc, name);
  }
  doc.font('regular');
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  return { doc, done };
}

/**
 * One ticket as a PDF, A5 landscape and filled: a band in the channel's colour with its brand and
 * the event, the session date in the deployment's zone, venue and address, the seat (sector, row,
 * seat) or zone in large type, rate, price, holder and order reference, a 45 mm QR code of `qr`
 * (the signed secret, D53, or the code of a format-1 ticket), the code in print (accepted by the
 * scanners too), and the terms along the bottom.
 */
export async function renderTicketPdf(ticket: TicketDocument, timeZone: string, qr: string): Promise<Buffer> {
  const l = LABELS[spokenLanguage(ticket.lang)];
  const { doc, done } = await newDocument({ Title: `${l.ticket} ${ticket.code}`, Author: ticket.brandName ?? 'Taquilla', Subject: ticket.eventName });
  drawTicket(doc, ticket, timeZone, qr);
  doc.end();
  return done;
}

/** Every ticket of an order in one PDF, one page each, in the order given (D72: one download). */
export async function renderTicketsPdf(tickets: Array<TicketDocument & { qr: string }>, timeZone: string): Promise<Buffer> {
  const first = tickets[0]!;
  const l = LABELS[spokenLanguage(first.lang)];
  const { doc, done } = await newDocument({ Title: `${l.order} ${first.orderReference}`, Author: first.brandName ?? 'Taquilla', Subject: first.eventName });
  for (const t of tickets) drawTicket(doc, t, timeZone, t.qr);
  doc.end();
  return done;
}

function drawTicket(doc: PDFKit.PDFDocument, ticket: TicketDocument, timeZone: string, qr: string): void {
  const l = LABELS[spokenLanguage(ticket.lang)];
  doc.addPage({ size: 'A5', layout: 'landscape', margin: 0 });
  const W = doc.page.width;
  const H = doc.page.height;
  const brand = ticket.brandColour ?? DEFAULT_BRAND;
  const pad = 28;

  // Band: brand and ticket kind, then the event's name.
  doc.rect(0, 0, W, 92).fill(brand);
  doc.fillColor('#ffffff').fontSize(11);
  say(doc, 'bold', (ticket.brandName ?? 'Taquilla').toUpperCase(), pad, 18, { width: W - 2 * pad - 120, characterSpacing: 1 });
  say(doc, 'regular', `${l.ticket} · ${l.order} ${ticket.orderReference}`, W - pad - 220, 18, { width: 220, align: 'right' });
  doc.fontSize(22);
  say(doc, 'bold', ticket.eventName, pad, 40, { width: W - 2 * pad, height: 48, ellipsis: true });

  // Left column: when, where, seat, price.
  const left = pad;
  const width = W - 2 * pad - QR_SIZE - 24;
  const label = (text: string, y: number) => {
    doc.fillColor(MUTED).fontSize(9);
    say(doc, 'regular', text.toUpperCase(), left, y, { width, characterSpacing: 0.5 });
  };
  let y = 108;
  label(l.date, y);
  doc.fillColor(INK).fontSize(14);
  say(doc, 'bold', formatSessionDate(ticket.sessionStart, ticket.lang, timeZone), left, y + 12, { width });
  y = doc.y + 8;
  label(l.venue, y);
  doc.fillColor(INK).fontSize(12);
  say(doc, 'bold', ticket.venueName, left, y + 12, { width });
  const address = [ticket.venueAddress, ticket.venueCity].filter(Boolean).join(', ');
  if (address) {
    doc.fontSize(11);
    say(doc, 'regular', address, undefined, undefined, { width });
  }
  y = doc.y + 10;
  // The seat in large type: what the usher looks for.
  doc.save().roundedRect(left, y, width, 58, 6).lineWidth(1.5).stroke(brand).restore();
  const cell = (caption: string, value: string, x: number, w: number) => {
    doc.fillColor(MUTED).fontSize(9);
    say(doc, 'regular', caption.toUpperCase(), x, y + 9, { width: w });
    doc.fillColor(INK).fontSize(18);
    say(doc, 'bold', value, x, y + 24, { width: w, height: 26, ellipsis: true });
  };
  if (ticket.numbered && ticket.row !== null) {
    const w3 = (width - 24) / 4;
    cell(l.sector, ticket.sectorName, left + 12, w3 * 2);
    cell(l.row, ticket.row, left + 12 + w3 * 2, w3);
    cell(l.seat, ticket.seatNumber ?? '', left + 12 + w3 * 3, w3);
  } else {
    cell(l.zone, ticket.sectorName, left + 12, width - 24);
  }
  y += 70;
  const half = (width - 12) / 2;
  const pair = (caption: [string, string], value: [string, string], at: number, valueOpts: PDFKit.Mixins.TextOptions = {}) => {
    doc.fillColor(MUTED).fontSize(9);
    say(doc, 'regular', caption[0].toUpperCase(), left, at, { width: half });
    say(doc, 'regular', caption[1].toUpperCase(), left + half + 12, at, { width: half });
    doc.fillColor(INK).fontSize(12);
    say(doc, 'bold', value[0], left, at + 12, { width: half, ...valueOpts });
    say(doc, 'bold', value[1], left + half + 12, at + 12, { width: half });
  };
  pair([l.rate, l.price], [ticket.rateName, formatPrice(ticket.totalAmount, ticket.lang, ticket.currency)], y);
  y += 34;
  pair([l.buyer, l.order], [ticket.buyerName ?? '—', ticket.orderReference], y, { height: 16, ellipsis: true });

  // Right column: the QR code, its text and the scan note.
  const qx = W - pad - QR_SIZE;
  const qy = 112;
  drawQr(doc, qr, qx, qy, QR_SIZE);
  doc.fillColor(INK).fontSize(8);
  say(doc, 'regular', ticket.code, qx - 10, qy + QR_SIZE + 4, { width: QR_SIZE + 20, align: 'center' });
  doc.fillColor(MUTED).fontSize(8);
  say(doc, 'regular', l.scan, qx - 10, doc.y + 4, { width: QR_SIZE + 20, align: 'center' });

  // Terms along the bottom, above a thin brand line.
  doc.rect(0, H - 8, W, 8).fill(brand);
  doc.moveTo(pad, H - 62).lineTo(W - pad, H - 62).lineWidth(0.5).stroke('#c9ced6');
  doc.fillColor(MUTED).fontSize(7.5);
  say(doc, 'regular', l.terms, pad, H - 54, { width: W - 2 * pad, height: 40 });

  if (ticket.status === 'void') {
    doc.save().rotate(-20, { origin: [W / 2, H / 2] }).fontSize(72).fillColor('#b00020').fillOpacity(0.75);
    say(doc, 'bold', l.voidNote, 0, H / 2 - 40, { width: W, align: 'center' });
    doc.restore();
  }
}

import QRCode from 'qrcode';
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

// The standard PDF fonts know no narrow no-break space, which some locales put in dates and prices.
const plain = (text: string) => text.replace(/[\u202f\u00a0]/g, ' ');

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

/**
 * One ticket as a PDF, A5 landscape and filled: a band in the channel's colour with its brand and
 * the event, the session date in the deployment's zone, venue and address, the seat (sector, row,
 * seat) or zone in large type, rate, price, holder and order reference, a 45 mm QR code of `qr`
 * (the signed secret, D53, or the code of a format-1 ticket), and the terms along the bottom.
 */
export async function renderTicketPdf(ticket: TicketDocument, timeZone: string, qr: string): Promise<Buffer> {
  // Loaded on the first ticket, not at start: pdfkit is the heaviest module of the service to load.
  const { default: PDFDocument } = await import('pdfkit');
  const l = LABELS[spokenLanguage(ticket.lang)];
  const doc = new PDFDocument({
    size: 'A5',
    layout: 'landscape',
    margin: 0,
    info: { Title: `${l.ticket} ${ticket.code}`, Author: ticket.brandName ?? 'Taquilla', Subject: ticket.eventName },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const W = doc.page.width;
  const H = doc.page.height;
  const brand = ticket.brandColour ?? DEFAULT_BRAND;
  const pad = 28;

  // Band: brand and ticket kind, then the event's name.
  doc.rect(0, 0, W, 92).fill(brand);
  doc.fillColor('#ffffff').font('Helvetica-Bold').fontSize(11).text((ticket.brandName ?? 'Taquilla').toUpperCase(), pad, 18, { width: W - 2 * pad - 120, characterSpacing: 1 });
  doc.font('Helvetica').fontSize(11).text(`${l.ticket} · ${l.order} ${ticket.orderReference}`, W - pad - 220, 18, { width: 220, align: 'right' });
  doc.font('Helvetica-Bold').fontSize(22).text(ticket.eventName, pad, 40, { width: W - 2 * pad, height: 48, ellipsis: true });

  // Left column: when, where, seat, price.
  const left = pad;
  const width = W - 2 * pad - QR_SIZE - 24;
  const label = (text: string, y: number) => doc.fillColor(MUTED).font('Helvetica').fontSize(9).text(text.toUpperCase(), left, y, { width, characterSpacing: 0.5 });
  let y = 108;
  label(l.date, y);
  doc.fillColor(INK).font('Helvetica-Bold').fontSize(14).text(formatSessionDate(ticket.sessionStart, ticket.lang, timeZone), left, y + 12, { width });
  y = doc.y + 8;
  label(l.venue, y);
  doc.fillColor(INK).font('Helvetica-Bold').fontSize(12).text(ticket.venueName, left, y + 12, { width });
  const address = [ticket.venueAddress, ticket.venueCity].filter(Boolean).join(', ');
  if (address) doc.font('Helvetica').fontSize(11).text(address, { width });
  y = doc.y + 10;
  // The seat in large type: what the usher looks for.
  doc.save().roundedRect(left, y, width, 58, 6).lineWidth(1.5).stroke(brand).restore();
  const cell = (caption: string, value: string, x: number, w: number) => {
    doc.fillColor(MUTED).font('Helvetica').fontSize(9).text(caption.toUpperCase(), x, y + 9, { width: w });
    doc.fillColor(INK).font('Helvetica-Bold').fontSize(18).text(value, x, y + 24, { width: w, height: 26, ellipsis: true });
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
  doc.fillColor(MUTED).font('Helvetica').fontSize(9).text(l.rate.toUpperCase(), left, y, { width: half }).text(l.price.toUpperCase(), left + half + 12, y, { width: half });
  doc.fillColor(INK).font('Helvetica-Bold').fontSize(12).text(ticket.rateName, left, y + 12, { width: half }).text(formatPrice(ticket.totalAmount, ticket.lang, ticket.currency), left + half + 12, y + 12, { width: half });
  y += 34;
  doc.fillColor(MUTED).font('Helvetica').fontSize(9).text(l.buyer.toUpperCase(), left, y, { width: half }).text(l.order.toUpperCase(), left + half + 12, y, { width: half });
  doc.fillColor(INK).font('Helvetica-Bold').fontSize(12).text(ticket.buyerName ?? '—', left, y + 12, { width: half, height: 16, ellipsis: true }).text(ticket.orderReference, left + half + 12, y + 12, { width: half });

  // Right column: the QR code, its text and the scan note.
  const qx = W - pad - QR_SIZE;
  const qy = 112;
  drawQr(doc, qr, qx, qy, QR_SIZE);
  doc.fillColor(INK).font('Helvetica').fontSize(8).text(ticket.code, qx - 10, qy + QR_SIZE + 4, { width: QR_SIZE + 20, align: 'center' });
  doc.fillColor(MUTED).fontSize(8).text(l.scan, qx - 10, doc.y + 4, { width: QR_SIZE + 20, align: 'center' });

  // Terms along the bottom, above a thin brand line.
  doc.rect(0, H - 8, W, 8).fill(brand);
  doc.moveTo(pad, H - 62).lineTo(W - pad, H - 62).lineWidth(0.5).stroke('#c9ced6');
  // Two standard fonts only: pdfkit parses each font's metrics anew for every document.
  doc.fillColor(MUTED).font('Helvetica').fontSize(7.5).text(l.terms, pad, H - 54, { width: W - 2 * pad, height: 40 });

  if (ticket.status === 'void') {
    doc.save().rotate(-20, { origin: [W / 2, H / 2] }).font('Helvetica-Bold').fontSize(72).fillColor('#b00020').fillOpacity(0.75).text(l.voidNote, 0, H / 2 - 40, { width: W, align: 'center' }).restore();
  }
  doc.end();
  return done;
}

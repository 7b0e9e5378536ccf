import QRCode from 'qrcode';
import { formatDateTime, formatMoney, spokenLanguage, type Language } from '../../platform/i18n.js';
import type { TicketDocument } from './tickets.repo.js';

const LABELS = {
  es: { ticket: 'Entrada', date: 'Fecha', venue: 'Recinto', sector: 'Sector', row: 'Fila', seat: 'Butaca', zone: 'Zona sin numerar', rate: 'Tarifa', price: 'Precio', buyer: 'Titular', order: 'Pedido', code: 'Código', voidNote: 'ANULADA' },
  en: { ticket: 'Ticket', date: 'Date', venue: 'Venue', sector: 'Sector', row: 'Row', seat: 'Seat', zone: 'Unnumbered zone', rate: 'Rate', price: 'Price', buyer: 'Ticket holder', order: 'Order', code: 'Code', voidNote: 'VOID' },
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

/**
 * One ticket as a PDF: event, date and time, venue, sector, row and seat or zone, rate, price,
 * holder, and the QR code of `qr` (the signed secret, D53, or the code of a format-1 ticket).
 */
export async function renderTicketPdf(ticket: TicketDocument, timeZone: string, qr: string): Promise<Buffer> {
  // Loaded on the first ticket, not at start: pdfkit is the heaviest module of the service to load.
  const { default: PDFDocument } = await import('pdfkit');
  const l = LABELS[spokenLanguage(ticket.lang)];
  const doc = new PDFDocument({
    size: 'A5',
    layout: 'landscape',
    margin: 36,
    info: { Title: `${l.ticket} ${ticket.code}`, Author: 'Taquilla', Subject: ticket.eventName },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const left = 36;
  const width = 360;
  doc.font('Helvetica-Bold').fontSize(20).text(ticket.eventName, left, 36, { width });
  doc.moveDown(0.3).font('Helvetica').fontSize(12);
  doc.text(`${l.date}: ${formatSessionDate(ticket.sessionStart, ticket.lang, timeZone)}`, { width });
  doc.text(`${l.venue}: ${ticket.venueName}${ticket.venueCity ? `, ${ticket.venueCity}` : ''}`, { width });
  doc.moveDown(0.6).font('Helvetica-Bold').fontSize(14);
  doc.text(`${l.sector}: ${ticket.sectorName}`, { width });
  if (ticket.numbered && ticket.row !== null) {
    doc.text(`${l.row}: ${ticket.row}    ${l.seat}: ${ticket.seatNumber}`, { width });
  } else {
    doc.text(l.zone, { width });
  }
  doc.moveDown(0.6).font('Helvetica').fontSize(12);
  doc.text(`${l.rate}: ${ticket.rateName}`, { width });
  doc.text(`${l.price}: ${formatPrice(ticket.totalAmount, ticket.lang, ticket.currency)}`, { width });
  if (ticket.buyerName) doc.text(`${l.buyer}: ${ticket.buyerName}`, { width });
  doc.text(`${l.order}: ${ticket.orderReference}`, { width });
  // Two standard fonts only: pdfkit parses each font's metrics anew for every document.
  doc.moveDown(0.6).font('Helvetica').fontSize(10).text(`${l.code}: ${ticket.code}`, { width });

  drawQr(doc, qr, 420, 60, 150);
  if (ticket.status === 'void') {
    doc.font('Helvetica-Bold').fontSize(36).fillColor('#b00020').text(l.voidNote, 420, 230, { width: 150, align: 'center' });
  }
  doc.end();
  return done;
}

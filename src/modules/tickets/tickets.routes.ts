import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ok } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';
import { Text } from '../../http/schemas.js';
import { spokenLanguage } from '../../platform/i18n.js';
import { orderFileFromLink, ticketPdfFromLink, TicketVoidError } from './tickets.service.js';
import { applePassFromLink, googleSaveUrlFromLink } from './wallet.service.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page a refunded ticket's link answers (410): what happened, in the buyer's language. */
function voidTicketPage(lang: string, orderReference: string): string {
  const es = spokenLanguage(lang) === 'es';
  const title = es ? 'Esta entrada ya no es válida' : 'This ticket is no longer valid';
  const text = es
    ? `Esta entrada se ha devuelto (pedido ${orderReference}) y ya no sirve para entrar. Si crees que es un error, contacta con quien te la vendió.`
    : `This ticket was refunded (order ${orderReference}) and no longer admits anyone. If you think this is a mistake, contact whoever sold it to you.`;
  return `<!doctype html><html lang="${es ? 'es' : 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main></body></html>`;
}

const FILE_PATTERN = /^([A-Za-z0-9]{16,64})\.pdf$/;
const PKPASS_PATTERN = /^([A-Za-z0-9]{16,64})\.pkpass$/;
const CODE_PATTERN = /^[A-Za-z0-9]{16,64}$/;
const ORDER_FILE_PATTERN = /^([A-Za-z0-9_-]{8,128})\.(pdf|ics)$/;

/** The query of every signed link (tickets.links.ts). */
const SignedLinkQuery = Type.Object({
  expires: Type.Optional(Text(20, { description: 'unix time the link expires' })),
  signature: Type.Optional(Text(128, { description: 'HMAC-SHA256 of the path and expiry' })),
});
/** A link that was tampered with, has expired or names nothing. */
const refused = { 403: Type.Ref('ErrorEnvelope'), 404: Type.Ref('ErrorEnvelope') };
/**
 * The schema of a ticket file served through a signed link: its name in the path, the link's query,
 * the file or a refusal; `gone`, 410 once the ticket is refunded.
 */
const signedFileSchema = (s: { operationId: string; summary: string; maxLength: number; name: string; type: string; gone?: boolean }) => ({
  tags: ['Tickets'],
  operationId: s.operationId,
  summary: s.summary,
  params: Type.Object({ file: Text(s.maxLength, { description: s.name }) }),
  querystring: SignedLinkQuery,
  response: { 200: Type.Any({ description: s.type }), ...refused, ...(s.gone ? { 410: Type.Ref('ErrorEnvelope') } : {}) },
});
/** A path that cannot be one we signed: the same answer as a tampered link. */
const invalidLink = () => new AppError('invalid_signature', 'The ticket link is invalid or has expired');
/** An API client that asks for JSON (and not for a page). */
const wantsJson = (request: FastifyRequest) => /application\/json/.test(request.headers.accept ?? '') && !/text\/html/.test(request.headers.accept ?? '');
/** A ticket file: its holder's alone, never kept by a shared cache. */
const sendPrivate = (reply: FastifyReply, type: string, disposition: string, body: Buffer | string) =>
  reply.type(type).header('content-disposition', disposition).header('cache-control', 'private, no-store').send(body);

/**
 * GET /api/tickets/{code}.pdf?expires=&signature= : public, but only through a signed link (D23).
 */
const ticketsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  /**
   * A ticket file through a signed link (signedFileSchema): a file name that does not match
   * `pattern` cannot be one we signed, and is answered as a tampered link before anything is read;
   * `serve` gets the name's parts and the link's expiry and signature.
   */
  const signedFile = (
    path: string,
    s: Parameters<typeof signedFileSchema>[0] & { pattern: RegExp },
    serve: (match: RegExpExecArray, link: { expires: string | undefined; signature: string | undefined }, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
  ) =>
    app.get(path, { schema: signedFileSchema(s) }, async (request, reply) => {
      const match = s.pattern.exec(request.params.file);
      if (!match) throw invalidLink();
      return serve(match, { expires: request.query.expires, signature: request.query.signature }, request, reply);
    });

  signedFile(
    '/:file',
    {
      operationId: 'getTicketPdf',
      summary: 'Ticket PDF through a signed link (from ticket_pdf_urls; valid 7 days)',
      maxLength: 80,
      name: '<ticket code>.pdf',
      type: 'application/pdf',
      gone: true,
      pattern: FILE_PATTERN,
    },
    async (match, link, request, reply) => {
      let pdf: Buffer;
      try {
        pdf = await ticketPdfFromLink(app.ctx, { code: match[1]!, ...link });
      } catch (err) {
        // A buyer following the link reads a page in the order's language (D58); an API client
        // that asks for JSON keeps the envelope. Still 410: the ticket is gone for good.
        if (err instanceof TicketVoidError && !wantsJson(request)) {
          return reply.status(410).type('text/html; charset=utf-8').header('cache-control', 'private, no-store').send(voidTicketPage(err.lang, err.orderReference));
        }
        throw err;
      }
      return sendPrivate(reply, 'application/pdf', `inline; filename="ticket-${match[1]}.pdf"`, pdf);
    },
  );

  signedFile(
    '/orders/:file',
    {
      operationId: 'getOrderTicketsFile',
      summary: "All of an order's tickets as one PDF (<order token>.pdf), or its sessions as an iCalendar file (<order token>.ics), through a signed link",
      maxLength: 140,
      name: '<order token>.pdf or <order token>.ics',
      type: 'application/pdf or text/calendar',
      gone: true,
      pattern: ORDER_FILE_PATTERN,
    },
    async (match, link, _request, reply) => {
      const kind = match[2] as 'pdf' | 'ics';
      const body = await orderFileFromLink(app.ctx, { orderToken: match[1]!, kind, ...link });
      return sendPrivate(reply, kind === 'pdf' ? 'application/pdf' : 'text/calendar; charset=utf-8', `${kind === 'pdf' ? 'inline' : 'attachment'}; filename="tickets.${kind}"`, body);
    },
  );
  signedFile(
    '/wallet/apple/:file',
    {
      operationId: 'getTicketApplePass',
      summary: 'The ticket as a signed Apple Wallet pass (<ticket code>.pkpass) through a signed link (D70); voided once refunded',
      maxLength: 80,
      name: '<ticket code>.pkpass',
      type: 'application/vnd.apple.pkpass',
      pattern: PKPASS_PATTERN,
    },
    async (match, link, _request, reply) => {
      const pass = await applePassFromLink(app.ctx, { code: match[1]!, ...link });
      return sendPrivate(reply, 'application/vnd.apple.pkpass', `attachment; filename="ticket-${match[1]}.pkpass"`, pass);
    },
  );

  app.get(
    '/wallet/google/:code',
    {
      schema: {
        tags: ['Tickets'],
        operationId: 'getTicketGoogleWalletLink',
        summary: "Redirects to Google Wallet's save page with the ticket's signed JWT, through a signed link (D70); INACTIVE once refunded",
        params: Type.Object({ code: Text(80, { description: 'ticket code' }) }),
        querystring: SignedLinkQuery,
        response: {
          200: Type.Object(
            {
              status: Type.Literal(200),
              success: Type.Literal(true),
              message: Type.String(),
              data: Type.Object({ save_url: Type.String({ description: 'https://pay.google.com/gp/v/save/<jwt>' }) }),
            },
            { description: 'With Accept: application/json, the save link itself instead of the redirect' },
          ),
          302: Type.Null({ description: 'Location: https://pay.google.com/gp/v/save/<jwt>' }),
          ...refused,
        },
      },
    },
    async (request, reply) => {
      if (!CODE_PATTERN.test(request.params.code)) throw invalidLink();
      const url = await googleSaveUrlFromLink(app.ctx, { code: request.params.code, expires: request.query.expires, signature: request.query.signature });
      reply.header('cache-control', 'private, no-store');
            if (wantsJson(request)) return ok({ save_url: url });
      return reply.redirect(url, 302);
    },
  );
};

export default ticketsRoutes;

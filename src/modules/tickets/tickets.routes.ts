import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError } from '../../http/errors.js';
import { Text } from '../../http/schemas.js';
import { ticketPdfFromLink } from './tickets.service.js';

const FILE_PATTERN = /^([A-Za-z0-9]{16,64})\.pdf$/;

/**
 * GET /api/tickets/{code}.pdf?expires=&signature= : public, but only through a signed link (D23).
 */
const ticketsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/:file',
    {
      schema: {
        tags: ['Tickets'],
        operationId: 'getTicketPdf',
        summary: 'Ticket PDF through a signed link (from ticket_pdf_urls; valid 7 days)',
        params: Type.Object({ file: Text(80, { description: '<ticket code>.pdf' }) }),
        querystring: Type.Object({
          expires: Type.Optional(Text(20, { description: 'unix time the link expires' })),
          signature: Type.Optional(Text(128, { description: 'HMAC-SHA256 of the path and expiry' })),
        }),
        response: {
          200: Type.Any({ description: 'application/pdf' }),
          403: Type.Ref('ErrorEnvelope'),
          404: Type.Ref('ErrorEnvelope'),
          410: Type.Ref('ErrorEnvelope'),
        },
      },
    },
    async (request, reply) => {
      const match = FILE_PATTERN.exec(request.params.file);
      // A path that cannot be a ticket was not issued by us: same answer as a tampered link.
      if (!match) throw new AppError('invalid_signature', 'The ticket link is invalid or has expired');
      const pdf = await ticketPdfFromLink(app.ctx, { code: match[1]!, expires: request.query.expires, signature: request.query.signature });
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="ticket-${match[1]}.pdf"`)
        .header('cache-control', 'private, no-store')
        .send(pdf);
    },
  );
};

export default ticketsRoutes;

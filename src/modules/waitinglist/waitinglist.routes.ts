import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { bearerErrors } from '../../http/schemas.js';
import { EntryParams, EntryResponse, JoinBody, SessionWaitingListParams } from './waitinglist.schemas.js';
import { joinWaitingList, waitingListEntry } from './waitinglist.service.js';

const errors = { ...bearerErrors, 404: Type.Ref('ErrorEnvelope'), 409: Type.Ref('ErrorEnvelope') };
const doc = (operationId: string, summary: string) => ({ tags: ['Waiting list'], operationId, summary });

/**
 * The buyer's side of a waiting list (D69) on the B2B interface, under /sales-channel/v1/{slug}: a
 * buyer's write like a cart, so the `cart` operation of the integration policy (models C and D;
 * buyers of A and B join on the portal).
 */
const CART = { b2bOperation: 'cart' } as const;
/** Joining is a buyer's write like a cart's: limited per buyer (D45, D69). */
const JOIN = { ...CART, rateLimits: ['cart_writes'] } as const;

const waitingListRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/:lang/sessions/:sessionId/waiting-list',
    {
      config: JOIN,
      schema: {
        ...doc('joinWaitingList', 'Join the waiting list of a sold-out session, sector or rate (D69)'),
        description:
          'Only while the scope has fewer free seats than `quantity` (else 409 `seats_available`). The answer carries the entry `token` ' +
          '(shown once) to read the position; freed seats are offered in list order by e-mail and the `waitinglist.offered` webhook.',
        params: SessionWaitingListParams,
        body: JoinBody,
        response: { 201: EntryResponse, ...errors },
      },
    },
    async (request, reply) => {
      const { lang, sessionId } = request.params;
      const entry = await joinWaitingList(app.ctx, request.channel!, lang, sessionId, request.body);
      return reply.status(201).send(ok(entry, 'Joined the waiting list', 201));
    },
  );

  app.get(
    '/:lang/waiting-list/:entryToken',
    {
      config: CART,
      schema: { ...doc('getWaitingListEntry', "A waiting-list entry: status, position and the open offer (D69)"), params: EntryParams, response: { 200: EntryResponse, ...errors } },
    },
    async (request) => ok(await waitingListEntry(app.ctx, request.channel!, request.params.entryToken), 'Waiting-list entry'),
  );
};

export default waitingListRoutes;

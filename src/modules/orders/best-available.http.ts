import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ok } from '../../http/envelope.js';
import { ChannelLangParams } from '../../http/schemas.js';
import { withQueuePass, type CartCreation } from '../queue/queue.service.js';
import { bestAvailable } from './best-available.service.js';
import type { BuyerKey, CartChannel } from './orders.buyer.js';
import { BestAvailableBody, BestAvailableResponse } from './orders.schemas.js';
import * as orders from './orders.service.js';

// Best available (D61) as the B2B API (orders.routes.ts) and the portal (portal-cart.routes.ts)
// both serve it: the same body and answer, the seats held in a new cart or added to order_token,
// and a waiting room's pass asked of a new cart only (D60). Each API names the operation, gives its
// route policy and errors, and says who is asking.

/** Who asks, as one API knows them: the buyer, the channel with its caller, and whose queue pass a new cart needs. */
interface Asker {
  buyer: BuyerKey;
  channel: CartChannel;
  holder: CartCreation['holder'];
  pass: CartCreation['pass'];
}

interface BestAvailableApi {
  url: string;
  doc: { tags: string[]; operationId: string; summary: string };
  config: object;
  errors: Record<number, unknown>;
  askerOf: (request: FastifyRequest) => Asker;
}

export function serveBestAvailable(app: Parameters<FastifyPluginAsyncTypebox>[0], api: BestAvailableApi) {
  app.post(
    api.url,
    {
      config: api.config,
      schema: { ...api.doc, params: ChannelLangParams, body: BestAvailableBody, response: { 201: BestAvailableResponse, ...api.errors } },
    },
    async (request, reply) => {
      const { buyer, channel, holder, pass } = api.askerOf(request);
      const body = request.body;
      const choose = () => bestAvailable(app.ctx, channel, buyer, request.params.lang, body);
      const adds = body.order_token !== undefined && (await orders.cartExists(app.ctx, channel, body.order_token));
      const order = adds ? await choose() : await withQueuePass(app.ctx, { sessionIds: [body.session_id], holder, pass }, choose);
      return reply.status(201).send(ok(order, 'Seats held', 201));
    },
  );
}

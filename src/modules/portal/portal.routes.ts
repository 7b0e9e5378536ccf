import { Type, type FastifyPluginAsyncTypebox, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';
import { orderLookupCounter } from '../../http/rate-limits.js';
import { ChannelLangParams, EmailAddress, Envelope, IdParam, LangParam, SlugParam } from '../../http/schemas.js';
import { toAmount } from '../../lib/money.js';
import { findChannelBySlug } from '../channels/channels.service.js';
import { AVAILABILITY_DESCRIPTION, AvailabilityQuery, AvailabilityResponse, answerAvailability } from '../catalogue/availability.http.js';
import { OrderResponse, OrderToken } from '../orders/orders.schemas.js';
import { getOrder } from '../orders/orders.service.js';
import paymentNotificationRoutes from './payments/payments.routes.js';
import portalCartRoutes from './portal-cart.routes.js';
import { startCheckout } from './payments/payments.service.js';
import { CheckoutBody, CheckoutResponse } from './portal.schemas.js';
import { cachedPublicChannel, publicChannel, requestOrderLookup } from './portal.service.js';
import { EntryParams, EntryResponse, JoinBody, SessionWaitingListParams } from '../waitinglist/waitinglist.schemas.js';
import { joinWaitingList, waitingListEntry } from '../waitinglist/waitinglist.service.js';
import { policyOf } from '../../lib/integration-policy.js';

const publicErrors = {
  403: { $ref: 'ErrorEnvelope' },
  404: { $ref: 'ErrorEnvelope' },
  409: { $ref: 'ErrorEnvelope' },
  422: { $ref: 'ErrorEnvelope' },
};

/** Public portal API (D25, D26): no bearer token; the channel is the one named in the path. */
const portalRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(paymentNotificationRoutes);

  // Buyer-facing calls: rate limited per client address (src/http/rate-limits.ts).
  await app.register(async (scope) => {
    const buyerScope = scope.withTypeProvider<TypeBoxTypeProvider>();

    await buyerScope.register(portalCartRoutes);

    buyerScope.get(
      '/:salesChannelSlug/:lang/orders/:orderToken',
      {
        config: { rateLimits: ['portal'] },
        schema: {
          tags: ['Portal'],
          operationId: 'getPortalOrder',
          summary: 'Read an order without a token (e.g. from a model B checkout page)',
          params: Type.Object({ salesChannelSlug: SlugParam, lang: LangParam, orderToken: OrderToken }),
          response: { 200: OrderResponse, 404: Type.Ref('ErrorEnvelope'), 422: Type.Ref('ErrorEnvelope') },
        },
      },
      async (request) => {
        const { salesChannelSlug, lang, orderToken } = request.params;
        const channel = await findChannelBySlug(app.ctx, salesChannelSlug);
        // An unknown channel answers like an unknown order: nothing is revealed (D5).
        if (!channel) throw new AppError('not_found', 'Order not found');
        return ok(await getOrder(app.ctx, channel, orderToken, lang), 'Order');
      },
    );

    buyerScope.get(
      '/:salesChannelSlug/:lang/events/:eventId/sessions/:sessionId/availability',
      {
        // A stream is one request; a page that polls instead does so every 2 s at most (portal.js).
        config: { rateLimits: ['portal'] },
        schema: {
          tags: ['Portal'],
          operationId: 'getPortalSessionAvailability',
          summary: 'Live seat map of a session: what changed since a version (poll, ETag or Server-Sent Events)',
          description: AVAILABILITY_DESCRIPTION,
          params: Type.Object({ salesChannelSlug: SlugParam, lang: LangParam, eventId: IdParam, sessionId: IdParam }),
          querystring: AvailabilityQuery,
          response: { 200: AvailabilityResponse, 304: Type.Null({ description: 'Not modified' }), 404: Type.Ref('ErrorEnvelope'), 422: Type.Ref('ErrorEnvelope') },
        },
      },
      async (request, reply) => {
        const { salesChannelSlug, eventId, sessionId } = request.params;
        // From memory, like the answer itself: a poll never reads the database (D62).
        const channel = await cachedPublicChannel(app.ctx, salesChannelSlug);
        return answerAvailability(app.ctx, request, reply, channel, { eventId, sessionId, since: request.query.since, form: request.query.form });
      },
    );

    buyerScope.post(
      '/:salesChannelSlug/:lang/orders/lookup',
      {
        // Per e-mail too: the handler counts `orderLookupCounter` itself (the key is in the body).
        config: { rateLimits: ['portal', 'order_lookup_address'] },
        schema: {
          tags: ['Portal'],
          operationId: 'lookupPortalOrders',
          summary: 'Find my order: e-mails the links to the orders of this address on this channel (the same answer either way)',
          params: ChannelLangParams,
          body: Type.Object({ email: EmailAddress('the e-mail address the orders were bought with') }, { additionalProperties: false }),
          response: { 200: Envelope(Type.Object({ email: Type.String() })), 404: Type.Ref('ErrorEnvelope'), 422: Type.Ref('ErrorEnvelope') },
        },
      },
      async (request, reply) => {
        const { salesChannelSlug, lang } = request.params;
        const counter = orderLookupCounter(request.body.email);
        await app.rateLimits.assertAllowed(reply, [counter]);
        await app.rateLimits.recordFailure([counter]);
        await requestOrderLookup(app.ctx, salesChannelSlug, lang, request.body.email);
        return ok({ email: request.body.email }, 'If this address has orders on this channel, an e-mail with their links is on its way');
      },
    );

    // D69: the waiting list's portal twins (the storefront's buyers, models A and B).
    buyerScope.post(
      '/:salesChannelSlug/:lang/sessions/:sessionId/waiting-list',
      {
        // D69: joining a waiting list is a buyer's write like a cart's.
        config: { rateLimits: ['portal', 'cart_writes'] },
        schema: {
          tags: ['Portal'],
          operationId: 'joinPortalWaitingList',
          summary: 'Join the waiting list of a sold-out session, sector or rate (D69; storefront of models A and B; public)',
          params: SessionWaitingListParams,
          body: JoinBody,
          response: { 201: EntryResponse, ...publicErrors },
        },
      },
      async (request, reply) => {
        const { salesChannelSlug, lang, sessionId } = request.params;
        const channel = await publicChannel(app.ctx, salesChannelSlug);
        if (!policyOf(channel.integrationMode).storefront) {
          throw new AppError('forbidden_for_integration_mode', 'The portal storefront is for integration models A and B only');
        }
        const entry = await joinWaitingList(app.ctx, channel, lang, sessionId, request.body);
        return reply.status(201).send(ok(entry, 'Joined the waiting list', 201));
      },
    );

    buyerScope.get(
      '/:salesChannelSlug/:lang/waiting-list/:entryToken',
      {
        config: { rateLimits: ['portal'] },
        schema: {
          tags: ['Portal'],
          operationId: 'getPortalWaitingListEntry',
          summary: 'A waiting-list entry by its token: status, position and the open offer (D69; public)',
          params: EntryParams,
          response: { 200: EntryResponse, 404: Type.Ref('ErrorEnvelope'), 422: Type.Ref('ErrorEnvelope') },
        },
      },
      async (request) => {
        const channel = await findChannelBySlug(app.ctx, request.params.salesChannelSlug);
        if (!channel) throw new AppError('not_found', 'Waiting-list entry not found');
        return ok(await waitingListEntry(app.ctx, channel, request.params.entryToken), 'Waiting-list entry');
      },
    );

    buyerScope.post(
      '/:salesChannelSlug/:lang/checkout',
      {
        config: { rateLimits: ['portal'] },
        schema: {
          tags: ['Portal'],
          operationId: 'startPortalCheckout',
          summary: 'Start paying an order: card provider parameters (A, C), channel checkout address (B), 403 (D)',
          params: ChannelLangParams,
          body: CheckoutBody,
          response: { 200: CheckoutResponse, ...publicErrors },
        },
      },
      async (request) => {
        const { salesChannelSlug, lang } = request.params;
        const channel = await publicChannel(app.ctx, salesChannelSlug);
        const { order_token, ...buyer } = request.body;
        const result = await startCheckout(app.ctx, channel, lang, order_token, buyer);
        if (result.kind === 'external') {
          return ok(
            { integration_mode: channel.integrationMode, redirect_url: result.checkoutUrl, checkout_url: result.checkoutUrl },
            'Continue on the sales channel checkout page',
          );
        }
        return ok(
          {
            integration_mode: channel.integrationMode,
            redirect_url: result.redirectUrl,
            provider: result.provider,
            payment_id: result.paymentId,
            params: result.params,
            amount: toAmount(result.amount),
            currency: result.currency,
          },
          'Continue on the card payment page',
        );
      },
    );
  });
};

export default portalRoutes;

import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ok } from '../../http/envelope.js';
import { AppError, invalidData } from '../../http/errors.js';
import { ChannelLangParams, IdParam, Int32, LangParam, SlugParam } from '../../http/schemas.js';
import { policyOf } from '../../lib/integration-policy.js';
import { AddItemBody, OrderParams, OrderResponse, OrderToken } from '../orders/orders.schemas.js';
import { cartChangeServer } from '../orders/cart-changes.http.js';
import { serveBestAvailable } from '../orders/best-available.http.js';
import * as orders from '../orders/orders.service.js';
import { applyVoucher, removeVoucher } from '../vouchers/vouchers.service.js';
import { withQueuePass } from '../queue/queue.service.js';
import { registerBuyerCookies } from '../../http/buyer-cookie.js';
import { portalBuyerOf, portalQueueHolder } from './portal.buyer.js';
import { createZoneCart, publicChannel } from './portal.service.js';

const errors = {
  403: Type.Ref('ErrorEnvelope'),
  404: Type.Ref('ErrorEnvelope'),
  409: Type.Ref('ErrorEnvelope'),
  422: Type.Ref('ErrorEnvelope'),
};
/** A buyer's cart write on the portal: per address on the portal's limit, and as a cart write (D45). */
const CART_WRITE = { rateLimits: ['portal', 'cart_writes'] } as const;
/** Voucher guesses are limited per order and per client too (unknown codes cost more). */
const VOUCHER = { rateLimits: ['portal', 'cart_writes', 'voucher_per_order', 'voucher_per_client'] } as const;
const doc = (operationId: string, summary: string) => ({ tags: ['Portal'], operationId, summary: `${summary} (storefront of models A and B; public)` });
const VoucherCode = Type.String({ minLength: 1, maxLength: 64, pattern: '^\\s*[A-Za-z0-9_-]+\\s*$' });
/** The portal creates carts with a token of its own choosing: the token is the buyer's only key. */
const CreateBody = Type.Object(
  {
    session_seat_id: Type.Optional(IdParam),
    sector_id: Type.Optional(IdParam),
    quantity: Type.Optional(Int32({ minimum: 1, maximum: 100 })),
    rate_id: Type.Optional(IdParam),
    items: Type.Optional(Type.Array(AddItemBody, { minItems: 1, maxItems: 100, description: 'D63: every seat of the cart at once (all or nothing)' })),
  },
  {
    additionalProperties: false,
    description: 'a seat (session_seat_id and rate_id), places of an unnumbered zone (sector_id, rate_id and quantity), or seats (items, D63)',
  },
);

/**
 * The storefront's cart (D25): no bearer token, bound to the channel in the path, calling the same
 * cart and voucher services as the B2B routes. Only models A and B build carts here; the carts of
 * models C and D are built by the widget through the B2B interface.
 */
const portalCartRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await registerBuyerCookies(app);
  app.addHook('preHandler', async (request) => {
    const { salesChannelSlug } = request.params as { salesChannelSlug: string };
    const channel = await publicChannel(app.ctx, salesChannelSlug);
    if (!policyOf(channel.integrationMode).storefront) {
      throw new AppError('forbidden_for_integration_mode', 'The portal storefront is for integration models A and B only');
    }
    request.channel = channel;
  });
  /** The cart a request names, as the cart and voucher services take it: context, channel, token, language. */
  const cartOf = (request: Pick<FastifyRequest, 'channel'> & { params: { lang: string; orderToken: string } }) =>
    [app.ctx, request.channel!, request.params.orderToken, request.params.lang] as const;

  app.post(
    '/:salesChannelSlug/:lang/orders',
    { config: CART_WRITE, schema: { ...doc('createPortalCart', 'Create a cart with its first seat, its seats (items), or places of an unnumbered zone'), params: ChannelLangParams, body: CreateBody, response: { 201: OrderResponse, ...errors } } },
    async (request, reply) => {
      const { session_seat_id, sector_id, quantity, rate_id, items } = request.body;
      const { lang } = request.params;
      const buyer = portalBuyerOf(app, request, request.channel!.id);
      let create;
      if (sector_id === undefined && quantity === undefined) {
        // A seat or seats: the service takes exactly one of the two forms (422 for both or neither).
        create = async () => (await orders.createOrder(app.ctx, request.channel!, buyer, lang, { session_seat_id, rate_id, items })).order;
      } else if (session_seat_id === undefined && items === undefined && sector_id !== undefined) {
        if (rate_id === undefined) throw invalidData({ rate_id: ['is required'] });
        create = () => createZoneCart(app.ctx, request.channel!, buyer, lang, { sector_id, rate_id, quantity: quantity ?? 1 });
      } else {
        throw invalidData({ session_seat_id: ['give either session_seat_id, items, or sector_id and quantity'] });
      }
      // A session with a waiting room needs this browser's pass (D60).
      const rateIds = [...(items?.map((i) => i.rate_id) ?? []), ...(rate_id === undefined ? [] : [rate_id])];
      const order = await withQueuePass(app.ctx, { rateIds, holder: portalQueueHolder(app, request), pass: request.headers['queue-pass'] }, create);
      return reply.status(201).send(ok(order, 'Order created', 201));
    },
  );

  serveBestAvailable(app, {
    url: '/:salesChannelSlug/:lang/orders/best-available',
    doc: doc('bestAvailablePortal', 'Hold the best free seats of a session (D61), in a new cart or added to order_token'),
    config: CART_WRITE,
    errors,
    askerOf: (request) => ({
      buyer: portalBuyerOf(app, request, request.channel!.id),
      channel: request.channel!,
      // A new cart of a session with a waiting room needs this browser's pass (D60).
      holder: portalQueueHolder(app, request),
      pass: request.headers['queue-pass'],
    }),
  });

  // The cart changes the B2B API serves too (orders/cart-changes.http.ts), as the portal names them.
  const serveChange = cartChangeServer(app, { url: '/:salesChannelSlug/:lang/orders/:orderToken', errors, cartOf });
  serveChange('cancel', doc('cancelPortalCart', 'Cancel a cart'), CART_WRITE);
  serveChange('addItem', doc('addPortalCartItem', 'Add a seat'), CART_WRITE);
  serveChange('addSectorItems', doc('addPortalCartSectorItems', 'Add places of an unnumbered zone'), CART_WRITE);
  serveChange('removeItem', doc('removePortalCartItem', 'Remove an item'), CART_WRITE);
  serveChange('changeRate', doc('changePortalCartItemsRate', 'Change the rate of items'), CART_WRITE);

  app.post(
    '/:salesChannelSlug/:lang/orders/:orderToken/apply-voucher',
    { config: VOUCHER, schema: { ...doc('applyPortalCartVoucher', 'Apply a voucher'), params: OrderParams, body: Type.Object({ code: VoucherCode }), response: { 200: OrderResponse, ...errors } } },
    async (request) => ok(await applyVoucher(...cartOf(request), request.body.code), 'Voucher applied'),
  );

  app.delete(
    '/:salesChannelSlug/:lang/orders/:orderToken/vouchers/:voucherCode',
    {
      config: CART_WRITE,
      schema: {
        ...doc('removePortalCartVoucher', 'Remove a voucher'),
        params: Type.Object({ salesChannelSlug: SlugParam, lang: LangParam, orderToken: OrderToken, voucherCode: VoucherCode }),
        response: { 200: OrderResponse, ...errors },
      },
    },
    async (request) => ok(await removeVoucher(...cartOf(request), request.params.voucherCode), 'Voucher removed'),
  );
};

export default portalCartRoutes;

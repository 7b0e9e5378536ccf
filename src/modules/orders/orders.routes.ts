import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ok } from '../../http/envelope.js';
import { ChannelLangParams, bearerErrors } from '../../http/schemas.js';
import { b2bBuyer, cartChannelOf } from './orders.buyer.js';
import {
  AddItemsBulkBody,
  CreateOrderBody,
  OrderParams,
  OrderResponse,
  RemoveItemsBulkBody,
} from './orders.schemas.js';
import * as orders from './orders.service.js';
import { withQueuePass } from '../queue/queue.service.js';
import { serveBestAvailable } from './best-available.http.js';
import { cartChangeServer } from './cart-changes.http.js';

const errors = { ...bearerErrors, 404: Type.Ref('ErrorEnvelope'), 409: Type.Ref('ErrorEnvelope') };
const doc = (operationId: string, summary: string) => ({ tags: ['Orders'], operationId, summary });

/**
 * Every route here builds, reads or cancels a cart: the `cart` operation of the integration policy
 * (B2B carts are for the widget models C and D, with either credential scope; D40).
 */
// Each route's policy (src/http/route-policy.ts): a read of the cart, a write (limited per buyer,
// D45), and the writes that complete a step of the pre-production checklist.
const CART_READ = { b2bOperation: 'cart' } as const;
const CART_WRITE = { b2bOperation: 'cart', rateLimits: ['cart_writes'] } as const;
const CART_BUILT = { ...CART_WRITE, checklistStep: 'cart_built' } as const;
const CART_EMPTIED = { ...CART_WRITE, checklistStep: 'cart_emptied' } as const;

// Every route passes the channel with its caller (cartChannelOf): in models C and D a widget-scope
// token reads and changes only its own buyer's carts (D57).

/**
 * What the waiting room checks when a B2B request creates a cart (D60): the sessions of its rates,
 * and the buyer the pass must belong to: a widget token's client_id, or none for a channel's server
 * (which forwards its buyer's pass) and for a widget token requested without a client_id.
 */
function b2bPassCreation(request: FastifyRequest, rateIds: readonly (number | undefined)[]) {
  const credential = request.credential!;
  return {
    rateIds: rateIds.filter((id): id is number => id !== undefined),
    // A widget token without a client_id (D38's single group) names no client to bind the pass to.
    holder: credential.scope === 'server' || !credential.clientId ? null : credential.clientId,
    pass: request.headers['queue-pass'],
  };
}

/** Orders and items (SPEC "Order and items"), under /sales-channel/v1/{slug}. */
const ordersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  /** The cart a request names, as the orders service's cart operations take it: context, channel with its caller, token, language. */
  const cartOf = (request: Pick<FastifyRequest, 'channel' | 'credential'> & { params: { lang: string; orderToken: string } }) =>
    [app.ctx, cartChannelOf(request), request.params.orderToken, request.params.lang] as const;
  /** The cart changes the portal serves too (cart-changes.http.ts), as this API names them. */
  const serveChange = cartChangeServer(app, { url: '/:lang/orders/:orderToken', errors, cartOf });

  app.post(
    '/:lang/orders',
    { config: CART_BUILT, schema: { ...doc('createOrder', 'Create an order with its first item, or with every seat of the cart (items, D63)'), params: ChannelLangParams, body: CreateOrderBody, response: { 200: OrderResponse, 201: OrderResponse, ...errors } } },
    async (request, reply) => {
      const buyer = b2bBuyer(request.channel!.id, request.credential!);
      const channel = cartChannelOf(request);
      const body = request.body;
      const create = () => orders.createOrder(app.ctx, channel, buyer, request.params.lang, body);
      // A new cart of a session with a waiting room needs the buyer's pass (D60); adding to an
      // existing cart through its order_token does not.
      const adds = body.order_token !== undefined && (await orders.cartExists(app.ctx, channel, body.order_token));
      const { order, created } = adds ? await create() : await withQueuePass(app.ctx, b2bPassCreation(request, body.items?.map((i) => i.rate_id) ?? [body.rate_id]), create);
      const status = created ? 201 : 200;
      return reply.status(status).send(ok(order, created ? 'Order created' : 'Item added to the existing order', status));
    },
  );

  serveBestAvailable(app, {
    url: '/:lang/orders/best-available',
    doc: doc('bestAvailable', 'Hold the best free seats of a session (D61), in a new order or added to order_token'),
    config: CART_WRITE,
    errors,
    askerOf: (request) => {
      const { holder, pass } = b2bPassCreation(request, []);
      return { buyer: b2bBuyer(request.channel!.id, request.credential!), channel: cartChannelOf(request), holder, pass };
    },
  });

  app.get(
    '/:lang/orders/:orderToken',
    { config: CART_READ, schema: { ...doc('getOrder', 'Read an order'), params: OrderParams, response: { 200: OrderResponse, ...errors } } },
    async (request) => ok(await orders.getOrder(...cartOf(request)), 'Order'),
  );

  serveChange('cancel', doc('cancelOrder', 'Cancel an order (its seats are released at once)'), CART_EMPTIED);

  serveChange('addItem', doc('addOrderItem', 'Add a seat'), CART_WRITE);

  app.post(
    '/:lang/orders/:orderToken/items-bulk',
    { config: CART_WRITE, schema: { ...doc('addOrderItemsBulk', 'Add seats in bulk (all or nothing)'), params: OrderParams, body: AddItemsBulkBody, response: { 200: OrderResponse, ...errors } } },
    async (request) => ok(await orders.addItemsBulk(...cartOf(request), request.body.items), 'Items added'),
  );

  serveChange('addSectorItems', doc('addOrderSectorItems', 'Add places of an unnumbered zone'), CART_WRITE);

  app.delete(
    '/:lang/orders/:orderToken/items/bulk',
    { config: CART_EMPTIED, schema: { ...doc('removeOrderItemsBulk', 'Remove items in bulk (all or nothing)'), params: OrderParams, body: RemoveItemsBulkBody, response: { 200: OrderResponse, ...errors } } },
    async (request) => ok(await orders.removeItemsBulk(...cartOf(request), request.body.item_ids), 'Items removed'),
  );

  serveChange('removeItem', doc('removeOrderItem', 'Remove an item'), CART_EMPTIED);

  serveChange('changeRate', doc('changeOrderItemsRate', 'Change the rate of items'), CART_WRITE);
};

export default ordersRoutes;

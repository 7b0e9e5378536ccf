import type { FastifyPluginAsyncTypebox, Static, TSchema, TUnknown } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ok } from '../../http/envelope.js';
import { AddItemBody, ChangeRateBody, ItemParams, OrderParams, OrderResponse, SectorItemsBody } from './orders.schemas.js';
import * as orders from './orders.service.js';

// The changes of an existing cart that the B2B API (orders.routes.ts) and the portal
// (portal-cart.routes.ts) both serve, the same way: where under the cart's path, what they take,
// which cart service they call and what the answer says. Each API names the operations and gives
// their route policy, errors and how a request names its cart.

/** A cart as the cart services take it: context, channel (with its caller), order token, language. */
type Cart = Readonly<Parameters<typeof orders.cancelOrder>>;

interface CartChange<P extends TSchema, B extends TSchema> {
  method: 'POST' | 'PUT' | 'DELETE';
  /** Under the cart's path (…/orders/:orderToken). */
  path: string;
  params: P;
  body?: B;
  message: string;
  change: (cart: Cart, request: { params: Static<P>; body: Static<B> }) => Promise<unknown>;
}

const cartChange = <P extends TSchema, B extends TSchema = TUnknown>(change: CartChange<P, B>) => change;

const CART_CHANGES = {
  cancel: cartChange({ method: 'DELETE', path: '', params: OrderParams, message: 'Order cancelled', change: (cart) => orders.cancelOrder(...cart) }),
  addItem: cartChange({ method: 'POST', path: '/items', params: OrderParams, body: AddItemBody, message: 'Item added', change: (cart, req) => orders.addItem(...cart, req.body) }),
  addSectorItems: cartChange({
    method: 'POST',
    path: '/items/sector',
    params: OrderParams,
    body: SectorItemsBody,
    message: 'Items added',
    change: (cart, req) => orders.addSectorItems(...cart, req.body),
  }),
  removeItem: cartChange({ method: 'DELETE', path: '/items/:itemId', params: ItemParams, message: 'Item removed', change: (cart, req) => orders.removeItem(...cart, req.params.itemId) }),
  changeRate: cartChange({
    method: 'PUT',
    path: '/items/change-rate',
    params: OrderParams,
    body: ChangeRateBody,
    message: 'Rate changed',
    change: (cart, req) => orders.changeRate(...cart, req.body.item_ids, req.body.rate_id),
  }),
};

/** How one API serves the cart changes: the cart's path, the errors it documents, and the cart a request names. */
interface CartApi {
  url: string;
  errors: Record<number, unknown>;
  cartOf: (request: never) => Cart;
}

/**
 * Registers the cart changes of one API: each call serves one change as the operation `doc`
 * (tags, operationId, summary) under the route policy `config`, answering the order in the envelope.
 */
export function cartChangeServer(app: Parameters<FastifyPluginAsyncTypebox>[0], api: CartApi) {
  return (which: keyof typeof CART_CHANGES, doc: { tags: string[]; operationId: string; summary: string }, config: object) => {
    const { method, path, params, body, message, change } = CART_CHANGES[which] as CartChange<TSchema, TSchema>;
    app.route({
      method,
      url: api.url + path,
      config,
      schema: { ...doc, params, ...(body && { body }), response: { 200: OrderResponse, ...api.errors } },
      handler: async (request: FastifyRequest) => ok(await change(api.cartOf(request as never), request as { params: unknown; body: unknown }), message),
    });
  };
}

import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { LangParam, SlugParam, bearerErrors } from '../../http/schemas.js';
import { cartChannelOf } from '../orders/orders.buyer.js';
import { OrderParams, OrderResponse, OrderToken } from '../orders/orders.schemas.js';
import { applyVoucher, removeVoucher } from './vouchers.service.js';

const errors = { ...bearerErrors, 404: Type.Ref('ErrorEnvelope'), 409: Type.Ref('ErrorEnvelope') };
const VoucherCode = Type.String({ minLength: 1, maxLength: 64, pattern: '^\\s*[A-Za-z0-9_-]+\\s*$' });

/** Vouchers on an order (SPEC "Vouchers"), under /sales-channel/v1/{slug}. */
const vouchersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/:lang/orders/:orderToken/apply-voucher',
    {
      // Vouchers edit the cart: the `cart` operation of the integration policy. A cart write, and
      // guesses of codes are limited per order and per client (unknown codes cost more, D45).
      config: { b2bOperation: 'cart', rateLimits: ['cart_writes', 'voucher_per_order', 'voucher_per_client'], checklistStep: 'voucher_applied' },
      schema: {
        tags: ['Vouchers'],
        operationId: 'applyVoucher',
        summary: 'Apply a voucher (one per order; another code replaces it)',
        params: OrderParams,
        body: Type.Object({ code: VoucherCode }),
        response: { 200: OrderResponse, ...errors },
      },
    },
    async (request) => {
      const { lang, orderToken } = request.params;
      return ok(await applyVoucher(app.ctx, cartChannelOf(request), orderToken, lang, request.body.code), 'Voucher applied');
    },
  );

  app.delete(
    '/:lang/orders/:orderToken/vouchers/:voucherCode',
    {
      // Vouchers edit the cart: the `cart` operation of the integration policy, limited as a cart write.
      config: { b2bOperation: 'cart', rateLimits: ['cart_writes'], checklistStep: 'voucher_removed' },
      schema: {
        tags: ['Vouchers'],
        operationId: 'removeVoucher',
        summary: 'Remove a voucher from an order',
        params: Type.Object({ salesChannelSlug: SlugParam, lang: LangParam, orderToken: OrderToken, voucherCode: VoucherCode }),
        response: { 200: OrderResponse, ...errors },
      },
    },
    async (request) => {
      const { lang, orderToken, voucherCode } = request.params;
      return ok(await removeVoucher(app.ctx, cartChannelOf(request), orderToken, lang, voucherCode), 'Voucher removed');
    },
  );
};

export default vouchersRoutes;

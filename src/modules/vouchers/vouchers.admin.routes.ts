import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Params } from '../../http/admin-api.js';
import { adminRouter } from '../../http/admin-routes.js';
import { createVoucherAs, getVoucherFor, listVouchersFor, updateVoucherAs } from './vouchers-admin.service.js';
import { Voucher, VoucherCreate, VoucherUpdate } from './vouchers.admin.schemas.js';

/**
 * The vouchers part of the admin API (/api/admin/v1/vouchers). The admin shell
 * (modules/admin/admin.routes.ts) mounts it behind its token hook (req.adminActor); src/app.ts hands it in.
 */
const vouchersAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const route = adminRouter(app, 'vouchers');

  route.get('/vouchers', { operationId: 'listVouchers', summary: 'Vouchers you may see', data: Type.Array(Voucher) }, (_req, actor) => listVouchersFor(ctx, actor));
  route.post('/vouchers', { operationId: 'createVoucher', summary: 'Create a voucher', body: VoucherCreate, data: Voucher, status: 201, message: 'Voucher created' }, (req, actor) =>
    createVoucherAs(ctx, actor, req.body),
  );
  route.get('/vouchers/:voucherId', { operationId: 'getVoucher', summary: 'One voucher', params: Params.voucher, data: Voucher }, (req, actor) => getVoucherFor(ctx, actor, req.params.voucherId));
  route.patch(
    '/vouchers/:voucherId',
    { operationId: 'updateVoucher', summary: 'Edit a voucher', params: Params.voucher, body: VoucherUpdate, data: Voucher, message: 'Voucher updated' },
    (req, actor) => updateVoucherAs(ctx, actor, req.params.voucherId, req.body),
  );
};

export default vouchersAdminRoutes;

import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { adminActorOf as actorOf, adminErrors, adminOperation, Params } from '../../http/admin-api.js';
import { Envelope } from '../../http/schemas.js';
import { createVoucherAs, getVoucherFor, listVouchersFor, updateVoucherAs } from './vouchers-admin.service.js';
import { Voucher, VoucherCreate, VoucherUpdate } from './vouchers.admin.schemas.js';

/**
 * The vouchers part of the admin API (/api/admin/v1/vouchers). The admin shell
 * (modules/admin/admin.routes.ts) mounts it behind its token hook (req.adminActor); src/app.ts hands it in.
 */
const vouchersAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const d = (operationId: string, summary: string) => adminOperation('vouchers', operationId, summary);

  app.get('/vouchers', { schema: { ...d('listVouchers', 'Vouchers you may see'), response: { 200: Envelope(Type.Array(Voucher)), ...adminErrors } } }, async (req) =>
    ok(await listVouchersFor(ctx, actorOf(req))),
  );
  app.post(
    '/vouchers',
    { schema: { ...d('createVoucher', 'Create a voucher'), body: VoucherCreate, response: { 201: Envelope(Voucher), ...adminErrors } } },
    async (req, reply) => reply.status(201).send(ok(await createVoucherAs(ctx, actorOf(req), req.body), 'Voucher created', 201)),
  );
  app.get(
    '/vouchers/:voucherId',
    { schema: { ...d('getVoucher', 'One voucher'), params: Params.voucher, response: { 200: Envelope(Voucher), ...adminErrors } } },
    async (req) => ok(await getVoucherFor(ctx, actorOf(req), req.params.voucherId)),
  );
  app.patch(
    '/vouchers/:voucherId',
    { schema: { ...d('updateVoucher', 'Edit a voucher'), params: Params.voucher, body: VoucherUpdate, response: { 200: Envelope(Voucher), ...adminErrors } } },
    async (req) => ok(await updateVoucherAs(ctx, actorOf(req), req.params.voucherId, req.body), 'Voucher updated'),
  );
};

export default vouchersAdminRoutes;

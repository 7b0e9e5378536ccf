import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Vouchers (issue 3). No routes yet: registered in app.ts so the module has its place. */
const vouchersRoutes: FastifyPluginAsyncTypebox = async () => {};

export default vouchersRoutes;

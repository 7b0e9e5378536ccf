import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Orders and items (issue 3). No routes yet: registered in app.ts so the module has its place. */
const ordersRoutes: FastifyPluginAsyncTypebox = async () => {};

export default ordersRoutes;

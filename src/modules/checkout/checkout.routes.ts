import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Payment confirmation, models B and D (issue 4). No routes yet: registered in app.ts so the module has its place. */
const checkoutRoutes: FastifyPluginAsyncTypebox = async () => {};

export default checkoutRoutes;

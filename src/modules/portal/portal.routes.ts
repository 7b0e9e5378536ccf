import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Public portal API (issues 3 and 6). No routes yet: registered in app.ts so the module has its place. */
const portalRoutes: FastifyPluginAsyncTypebox = async () => {};

export default portalRoutes;

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Admin API (issue 8). No routes yet: registered in app.ts so the module has its place. */
const adminRoutes: FastifyPluginAsyncTypebox = async () => {};

export default adminRoutes;

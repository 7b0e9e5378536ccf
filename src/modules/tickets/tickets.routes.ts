import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Signed ticket downloads (issue 4). No routes yet: registered in app.ts so the module has its place. */
const ticketsRoutes: FastifyPluginAsyncTypebox = async () => {};

export default ticketsRoutes;

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Sales report (issue 5). No routes yet: registered in app.ts so the module has its place. */
const reportsRoutes: FastifyPluginAsyncTypebox = async () => {};

export default reportsRoutes;

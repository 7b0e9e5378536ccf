import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** Catalogue: events, sessions, maps (issue 2). No routes yet: registered in app.ts so the module has its place. */
const catalogueRoutes: FastifyPluginAsyncTypebox = async () => {};

export default catalogueRoutes;

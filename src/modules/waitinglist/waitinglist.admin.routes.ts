import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { adminRouter } from '../../http/admin-routes.js';
import { IdParam } from '../../http/schemas.js';
import { AdminWaitingList } from './waitinglist.schemas.js';
import { sessionWaitingListFor } from './waitinglist.service.js';

const errors = { 401: Type.Ref('ErrorEnvelope'), 403: Type.Ref('ErrorEnvelope'), 404: Type.Ref('ErrorEnvelope'), 422: Type.Ref('ErrorEnvelope') };

/** The organiser's waiting lists in the admin API (D69); inside the admin routes, behind their token hook. */
const waitingListAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  adminRouter(app, 'audience').get(
    '/sessions/:sessionId/waiting-list',
    {
      operationId: 'getSessionWaitingList',
      summary: "A session's waiting list: conversion figures and every entry in list order (D69)",
      description: 'Statuses as of now: an offer whose order was paid is converted, one whose hold ran out has lapsed (and passed on). At most 2000 entries.',
      params: Type.Object({ sessionId: IdParam }),
      data: AdminWaitingList,
      errors,
    },
    (req, actor) => sessionWaitingListFor(app.ctx, actor, req.params.sessionId),
  );
};

export default waitingListAdminRoutes;

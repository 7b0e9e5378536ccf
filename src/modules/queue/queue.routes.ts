import crypto from 'node:crypto';
import cors from '@fastify/cors';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { etagMatches } from '../../http/etag.js';
import { invalidData } from '../../http/errors.js';
import { buyerCookieId, registerBuyerCookies } from '../../http/buyer-cookie.js';
import { newChallenge } from './queue.challenge.js';
import { ChallengeResponse, DrawResponse, JoinBody, JoinResponse, PassBody, PassResponse, QueueParams, QueueStatusResponse } from './queue.schemas.js';
import * as queue from './queue.service.js';

const errors = { 403: Type.Ref('ErrorEnvelope'), 404: Type.Ref('ErrorEnvelope'), 409: Type.Ref('ErrorEnvelope'), 422: Type.Ref('ErrorEnvelope') };
const doc = (operationId: string, summary: string) => ({ tags: ['Waiting room'], operationId, summary: `${summary} (D60; public, no token)` });

/**
 * The waiting room's public interface (D60), under /api/queue/v1/sessions/{sessionId}: no token, any
 * origin (the widget runs on partner pages), nothing that reads PostgreSQL per request.
 */
const queueRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await registerBuyerCookies(app);
  await app.register(cors, { origin: '*', methods: ['GET', 'POST'], allowedHeaders: ['Content-Type', 'If-None-Match'], exposedHeaders: ['ETag'], maxAge: 600 });

  app.get(
    '/sessions/:sessionId',
    { schema: { ...doc('getQueueStatus', 'The status document of a session\'s waiting room, the same for every buyer'), params: QueueParams, response: { 200: QueueStatusResponse, ...errors } } },
    async (request, reply) => {
      const status = await queue.queueStatus(app.ctx, request.params.sessionId);
      // The ETag leaves out the clock's reading, which changes every request.
      const { server_time: _time, ...state } = status;
      const etag = `W/"${crypto.createHash('sha1').update(JSON.stringify(state)).digest('base64url').slice(0, 22)}"`;
      reply.header('etag', etag).header('cache-control', 'public, max-age=1');
      if (etagMatches(request.headers['if-none-match'], etag)) return reply.status(304).send();
      return ok(status, 'Queue status');
    },
  );

  app.get(
    '/sessions/:sessionId/challenge',
    { schema: { ...doc('getQueueChallenge', 'A proof-of-work challenge to solve before joining'), params: QueueParams, response: { 200: ChallengeResponse, ...errors } } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return ok(await newChallenge(app.ctx, request.params.sessionId), 'Challenge');
    },
  );

  app.post(
    '/sessions/:sessionId/join',
    { schema: { ...doc('joinQueue', 'Join the waiting room: the client\'s one ticket'), params: QueueParams, body: JoinBody, response: { 200: JoinResponse, ...errors } } },
    async (request) => {
      // The portal joins with its buyer cookie (D60): the client id its cart create checks the pass against.
      const cookieId = request.body.client_id === undefined ? buyerCookieId(request) : null;
      const clientId = request.body.client_id ?? (cookieId ? queue.portalQueueClient(app.ctx.config.signingSecret, cookieId) : '');
      if (!clientId) throw invalidData({ client_id: ['is required: the widget\'s client id, or a portal buyer cookie'] });
      return ok(await queue.joinQueue(app.ctx, request.params.sessionId, { ...request.body, client_id: clientId }), 'Joined');
    },
  );

  app.post(
    '/sessions/:sessionId/pass',
    { schema: { ...doc('getQueuePass', 'The pass of an admitted ticket (409 not_admitted_yet before its turn)'), params: QueueParams, body: PassBody, response: { 200: PassResponse, ...errors } } },
    async (request) => ok(await queue.queuePass(app.ctx, request.params.sessionId, request.body.ticket), 'Admitted'),
  );

  app.get(
    '/sessions/:sessionId/draw',
    { schema: { ...doc('getQueueDraw', 'The seed and the pre-queue in drawn order, to recompute the draw'), params: QueueParams, response: { 200: DrawResponse, ...errors } } },
    async (request) => ok(await queue.queueDraw(app.ctx, request.params.sessionId), 'Draw'),
  );
};

export default queueRoutes;

import { Type, type FastifyPluginAsyncTypebox, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { ok } from '../../http/envelope.js';
import { invalidData } from '../../http/errors.js';
import { buyerCookieId, registerBuyerCookies } from '../../http/buyer-cookie.js';
import { newChallenge } from './queue.challenge.js';
import { ChallengeResponse, DrawResponse, JoinBody, JoinResponse, PassBody, PassResponse, QueueParams, QueueStatusQuery, QueueStatusResponse } from './queue.schemas.js';
import * as queue from './queue.service.js';
import { JSON_UTF8, pollAnswer, registerPollShortcut, type PollCount } from './queue.polls.js';
import { allowAnyOrigin } from '../../http/cors.js';

const errors = { 403: Type.Ref('ErrorEnvelope'), 404: Type.Ref('ErrorEnvelope'), 409: Type.Ref('ErrorEnvelope'), 422: Type.Ref('ErrorEnvelope') };
/**
 * The status polls' log level: no line per poll (one a minute says how many), unless the deployment
 * logs at debug or trace, or logs less than warnings anyway.
 */
type PollLogLevel = 'trace' | 'debug' | 'warn' | 'error' | 'fatal' | 'silent';
function statusPollLogLevel(configured: string): PollLogLevel {
  const kept: readonly string[] = ['trace', 'debug', 'error', 'fatal', 'silent'];
  return kept.includes(configured) ? (configured as PollLogLevel) : 'warn';
}

const doc = (operationId: string, summary: string) => ({ tags: ['Waiting room'], operationId, summary: `${summary} (D60; public, no token)` });

/**
 * The waiting room's public interface (D60), under /api/queue/v1/sessions/{sessionId}: no token, any
 * origin (the widget runs on partner pages), nothing that reads PostgreSQL per request.
 */
const queueRoutes: FastifyPluginAsyncTypebox = async (app) => {
  allowAnyOrigin(app, { methods: ['GET', 'POST'], allowedHeaders: ['Content-Type', 'If-None-Match'], exposedHeaders: ['ETag', 'Date', 'Age'], maxAge: 600 });
  // The status document, polled by every waiting buyer (every 5 s or so: 20,000 a second for
  // 100,000 buyers): in a scope of its own, without the buyer cookies the other routes read, and
  // without an access log line per poll (a minute's count instead, and the request metrics).
  await app.register(async (scope) => {
    const polls = scope.withTypeProvider<TypeBoxTypeProvider>();
    const count: PollCount = { answered: 0, notModified: 0 };
    const summary = setInterval(() => {
      if (count.answered === 0) return;
      app.log.info({ answered: count.answered, not_modified: count.notModified }, 'queue status polls in the last minute');
      count.answered = count.notModified = 0;
    }, 60_000);
    summary.unref();
    polls.addHook('onClose', async () => clearInterval(summary));
    // Bare polls are answered before Fastify once the route has answered one (queue.polls.ts).
    const recordHeaders = registerPollShortcut(app, count);
    const answerPoll = (ifNoneMatch: string | undefined, reply: FastifyReply, shared: queue.StatusDocument, number: number | null | undefined) => {
      const answer = pollAnswer(app.ctx, shared, number, ifNoneMatch);
      count.answered++;
      reply.header('etag', answer.etag).header('cache-control', 'public, max-age=1');
      if (answer.body === null) {
        count.notModified++;
        return reply.status(304).send();
      }
      // Already JSON (Fastify sends a JSON-typed string as it is): the same bytes as the schema's serializer.
      return reply.type(JSON_UTF8).send(answer.body);
    };
    polls.addHook('onResponse', (request, reply, done) => {
      if (reply.statusCode === 200 && (request.query as { ticket_id?: string }).ticket_id === undefined) recordHeaders(reply.getHeaders());
      done();
    });
    polls.get(
      '/sessions/:sessionId',
      {
        schema: {
          ...doc('getQueueStatus', 'The status document of a session\'s waiting room, the same for every buyer (with `ticket_id`: that ticket\'s number too)'),
          params: QueueParams,
          querystring: QueueStatusQuery,
          response: { 200: QueueStatusResponse, ...errors },
        },
        logLevel: statusPollLogLevel(app.ctx.config.logLevel),
      },
      (request, reply) => {
        // The document shared by every buyer, built once while nothing in it changes (queue.service.ts):
        // a poll costs a cache look-up and, unless 304, one string of the clock's reading. Answered
        // without a promise when the document is ready and the poll names no ticket (nearly every
        // poll); a build or a ticket's number (a Redis read in a fleet) waits.
        const sessionId = request.params.sessionId;
        const ticketId = request.query.ticket_id;
        const ready = queue.statusDocumentNow(app.ctx, sessionId);
        if (ready !== null && ticketId === undefined) {
          answerPoll(request.headers['if-none-match'], reply, ready, undefined);
          return;
        }
        return (async () => {
          const shared = ready ?? (await queue.buildStatusDocument(app.ctx, sessionId));
          // A buyer of the pre-queue names its ticket until it knows its number (given once drawn).
          const number = ticketId === undefined ? undefined : await queue.statusNumberOf(app.ctx, shared, ticketId);
          return answerPoll(request.headers['if-none-match'], reply, shared, number);
        })();
      },
    );
  });

  // After the polls' scope: it does not inherit them.
  await registerBuyerCookies(app);

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

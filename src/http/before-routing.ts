import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** Answers a request by itself and says so (true), or leaves it to Fastify (false) untouched. */
export type RawShortcut = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Puts `shortcut` in front of Fastify on the app's HTTP server: each request is offered to it
 * before Fastify's routing, hooks and logging. Only for an answer so hot and so fixed that the
 * framework around it is most of its cost (the waiting room's status poll, 20,000 a second in an
 * on-sale: queue.poll-shortcut.ts); whatever it declines goes to Fastify as before.
 *
 * Fastify's server (with its timeouts and keep-alive settings) is kept; only its request listener
 * is wrapped. `app.inject` does not pass through here: tests of the shortcut use a real socket.
 */
export function serveBeforeRouting(app: FastifyInstance, shortcut: RawShortcut): void {
  const [fastify, ...others] = app.server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  if (!fastify || others.length > 0) throw new Error('serveBeforeRouting: expected Fastify\'s one request listener');
  app.server.removeListener('request', fastify);
  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!shortcut(req, res)) fastify(req, res);
  });
}

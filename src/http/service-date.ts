import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

// The `Date` header of every answer is the app's clock (the one every time in a body is read off),
// not Node's own: buyers' browsers run their countdowns on it (ui/service-clock.ts), a cache's 304
// carries it where the stored body's times are old, and a test's manual clock moves it with
// everything else. In production the two are the same clock.

let last = { second: NaN, text: '' };

/** An HTTP-date (RFC 9110) of `ms`, whole seconds: one string per second. */
export function httpDate(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== last.second) last = { second, text: new Date(second * 1000).toUTCString() };
  return last.text;
}

/** Sets each answer's `Date` from the app's clock (a callback hook: no promise per request). */
export function registerServiceDate(app: FastifyInstance): void {
  const clock = app.ctx.clock;
  app.addHook('onRequest', (_request: FastifyRequest, reply: FastifyReply, next: () => void) => {
    reply.raw.setHeader('date', httpDate(clock.now().getTime()));
    next();
  });
}

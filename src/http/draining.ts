import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    /** True once `drain` was called: `/readyz` answers 503 so that a load balancer stops sending. */
    isDraining(): boolean;
    /**
     * Starts draining and resolves after `ms`, while the instance keeps serving: the load balancer
     * needs a few failed health checks (deploy/haproxy.cfg: 2 x 1 s) to take it out of rotation,
     * and a request it sends meanwhile must still be answered, not refused (SHUTDOWN_DRAIN_SECONDS).
     */
    drain(ms: number): Promise<void>;
  }
}

/** The draining state of a shutting-down instance (src/server.ts; docs/operations.md "A fleet"). */
export const drainingPlugin = fp(
  async (app) => {
    let draining = false;
    app.decorate('isDraining', () => draining);
    app.decorate('drain', async (ms: number) => {
      draining = true;
      if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
    });
  },
  { name: 'draining' },
);

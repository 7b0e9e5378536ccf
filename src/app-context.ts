import type { Config } from './config.js';
import type { Database, Db } from './db/client.js';
import type { Clock } from './lib/clock.js';
import type { ChannelRecord } from './db/channel-record.js';

/** What every service needs: configuration, the database and the clock. Built once per app. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  clock: Clock;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
  interface FastifyRequest {
    /** The channel of the bearer token, set by the auth hook on B2B routes. */
    channel: ChannelRecord | null;
  }
}

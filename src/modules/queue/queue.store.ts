import type { Redis } from 'ioredis';

/**
 * Where a waiting room's state lives (D60): this instance's memory, or Redis when REDIS_URL is set,
 * so that every instance of a fleet serves one queue. Each operation is atomic (one Lua script in
 * Redis, synchronous code in memory). `q` names one queue: the session and its seed's commitment,
 * so that a queue re-created for a session never meets an older one's state.
 *
 * Per queue: the tickets by client, the pre-queue in arrival order, each ticket's number (none
 * before the draw), the drawn order, the last number given, when each admitted ticket's pass was
 * first issued, and the carts made under each pass.
 *
 * Nothing of a queue is needed long after its session: the writes that make a queue's state
 * (join, draw, pass) carry `keepMs`, how long from now the store keeps the queue (Redis keys expire
 * then; memory drops it), so that a deployment's Redis does not grow with every past on-sale.
 */
export interface QueueStore {
  /**
   * The client's ticket, made with `newTicketId` if it has none: before the draw it joins the
   * pre-queue (`beforeStart`) without a number; after the draw it gets the next number, at least
   * `minNumber`. `draw`: the sales start has passed and the pre-queue is not drawn yet.
   */
  join(q: string, clientId: string, newTicketId: string, beforeStart: boolean, minNumber: number, keepMs: number): Promise<JoinOutcome>;
  /** The client's ticket id, if it has joined. */
  ticketOf(q: string, clientId: string): Promise<string | null>;
  counts(q: string): Promise<QueueCounts>;
  /** The pre-queue's ticket ids in arrival order. */
  preQueue(q: string): Promise<string[]>;
  /** Numbers the pre-queue in `order` (1, 2, ...) once; false when the pre-queue grew meanwhile. */
  commitDraw(q: string, order: readonly string[], keepMs: number): Promise<boolean>;
  drawnOrder(q: string): Promise<string[]>;
  numberOf(q: string, ticketId: string): Promise<number | null>;
  /** When the ticket's pass was first issued (now, the first time). */
  passIssuedAt(q: string, ticketId: string, nowMs: number, keepMs: number): Promise<number>;
  /** Counts one cart made under the ticket's pass unless `max` are counted already. */
  usePass(q: string, ticketId: string, max: number, ttlMs: number): Promise<boolean>;
  /** Gives back a use whose cart was not made. */
  releasePass(q: string, ticketId: string): Promise<void>;
  /** True the first time `key` is seen within `ttlMs` (a solved challenge is used once). */
  once(key: string, ttlMs: number): Promise<boolean>;
}

export type JoinOutcome = { ticketId: string; number: number | null } | 'draw';

export interface QueueCounts {
  drawn: boolean;
  /** Tickets in the pre-queue (drawn or not). */
  preQueue: number;
  /** The last number given (0 before the draw). */
  last: number;
}

interface MemoryQueue {
  clients: Map<string, string>;
  pre: string[];
  numbers: Map<string, number>;
  order: string[];
  drawn: boolean;
  last: number;
  passes: Map<string, number>;
  uses: Map<string, number>;
  keepUntil: number;
}

/** One instance's queues (a single instance, tests). */
export class MemoryQueueStore implements QueueStore {
  private readonly queues = new Map<string, MemoryQueue>();
  private readonly seen = new Map<string, number>();

  /** The queue, made empty when new; a write passes `keepMs` (a new queue first forgets the expired ones). */
  private queue(q: string, keepMs?: number): MemoryQueue {
    let queue = this.queues.get(q);
    if (!queue) {
      const now = Date.now();
      for (const [name, old] of this.queues) if (old.keepUntil <= now) this.queues.delete(name);
      queue = { clients: new Map(), pre: [], numbers: new Map(), order: [], drawn: false, last: 0, passes: new Map(), uses: new Map(), keepUntil: Infinity };
      this.queues.set(q, queue);
    }
    if (keepMs !== undefined) queue.keepUntil = Date.now() + keepMs;
    return queue;
  }

  async join(q: string, clientId: string, newTicketId: string, beforeStart: boolean, minNumber: number, keepMs: number): Promise<JoinOutcome> {
    const queue = this.queue(q, keepMs);
    const existing = queue.clients.get(clientId);
    if (existing) return { ticketId: existing, number: queue.numbers.get(existing) ?? null };
    if (!queue.drawn) {
      if (!beforeStart) return 'draw';
      queue.clients.set(clientId, newTicketId);
      queue.pre.push(newTicketId);
      return { ticketId: newTicketId, number: null };
    }
    const number = Math.max(queue.last + 1, minNumber);
    queue.last = number;
    queue.clients.set(clientId, newTicketId);
    queue.numbers.set(newTicketId, number);
    return { ticketId: newTicketId, number };
  }

  async ticketOf(q: string, clientId: string): Promise<string | null> {
    return this.queue(q).clients.get(clientId) ?? null;
  }

  async counts(q: string): Promise<QueueCounts> {
    const queue = this.queue(q);
    return { drawn: queue.drawn, preQueue: queue.pre.length, last: queue.last };
  }

  async preQueue(q: string): Promise<string[]> {
    return [...this.queue(q).pre];
  }

  async commitDraw(q: string, order: readonly string[], keepMs: number): Promise<boolean> {
    const queue = this.queue(q, keepMs);
    if (queue.drawn) return true;
    if (queue.pre.length !== order.length) return false;
    order.forEach((ticketId, i) => queue.numbers.set(ticketId, i + 1));
    queue.order = [...order];
    queue.last = order.length;
    queue.drawn = true;
    return true;
  }

  async drawnOrder(q: string): Promise<string[]> {
    return [...this.queue(q).order];
  }

  async numberOf(q: string, ticketId: string): Promise<number | null> {
    return this.queue(q).numbers.get(ticketId) ?? null;
  }

  async passIssuedAt(q: string, ticketId: string, nowMs: number, keepMs: number): Promise<number> {
    const passes = this.queue(q, keepMs).passes;
    if (!passes.has(ticketId)) passes.set(ticketId, nowMs);
    return passes.get(ticketId)!;
  }

  async usePass(q: string, ticketId: string, max: number): Promise<boolean> {
    const uses = this.queue(q).uses;
    const used = uses.get(ticketId) ?? 0;
    if (used >= max) return false;
    uses.set(ticketId, used + 1);
    return true;
  }

  async releasePass(q: string, ticketId: string): Promise<void> {
    const uses = this.queue(q).uses;
    uses.set(ticketId, Math.max(0, (uses.get(ticketId) ?? 0) - 1));
  }

  async once(key: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    if ((this.seen.get(key) ?? 0) > now) return false;
    this.seen.set(key, now + ttlMs);
    if (this.seen.size > 100_000) for (const [k, until] of this.seen) if (until <= now) this.seen.delete(k);
    return true;
  }
}

// KEYS: clients, pre, numbers, meta. ARGV: client, new ticket id, before start (1/0), min number,
// keep (ms).
const JOIN = `
local t = redis.call('HGET', KEYS[1], ARGV[1])
if t then return {t, redis.call('HGET', KEYS[3], t) or ''} end
if redis.call('HGET', KEYS[4], 'drawn') ~= '1' then
  if ARGV[3] ~= '1' then return {'', 'draw'} end
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('RPUSH', KEYS[2], ARGV[2])
  for i = 1, 2 do redis.call('PEXPIRE', KEYS[i], ARGV[5]) end
  return {ARGV[2], ''}
end
local n = math.max(tonumber(redis.call('HGET', KEYS[4], 'last') or '0') + 1, tonumber(ARGV[4]))
redis.call('HSET', KEYS[4], 'last', n)
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[2], n)
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[5]) end
return {ARGV[2], tostring(n)}`;

// KEYS: pre, numbers, meta, order. ARGV: keep (ms), then the drawn order.
const COMMIT_DRAW = `
if redis.call('HGET', KEYS[3], 'drawn') == '1' then return 1 end
if redis.call('LLEN', KEYS[1]) ~= #ARGV - 1 then return 0 end
for i = 2, #ARGV do
  redis.call('HSET', KEYS[2], ARGV[i], i - 1)
  redis.call('RPUSH', KEYS[4], ARGV[i])
end
redis.call('HSET', KEYS[3], 'drawn', '1', 'last', #ARGV - 1)
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
return 1`;

// KEYS: the pass's use counter. ARGV: max, ttl ms.
const USE_PASS = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if n > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return 0
end
return 1`;

type Scripts = {
  taquillaQueueJoin(...args: (string | number)[]): Promise<[string, string]>;
  taquillaQueueDraw(...args: (string | number)[]): Promise<number>;
  taquillaQueueUsePass(...args: (string | number)[]): Promise<number>;
};

/** Queues in Redis, shared by every instance using the same server and key prefix. */
export class RedisQueueStore implements QueueStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('taquillaQueueJoin', { numberOfKeys: 4, lua: JOIN });
    redis.defineCommand('taquillaQueueDraw', { numberOfKeys: 4, lua: COMMIT_DRAW });
    redis.defineCommand('taquillaQueueUsePass', { numberOfKeys: 1, lua: USE_PASS });
  }

  private get scripts(): Scripts {
    return this.redis as unknown as Scripts;
  }

  // One hash tag per queue: a Redis Cluster keeps a queue's keys in one slot, as its scripts need.
  private key(q: string, part: string): string {
    return `${this.prefix}queue:{${q}}:${part}`;
  }

  async join(q: string, clientId: string, newTicketId: string, beforeStart: boolean, minNumber: number, keepMs: number): Promise<JoinOutcome> {
    const keys = ['clients', 'pre', 'numbers', 'meta'].map((part) => this.key(q, part));
    const [ticketId, number] = await this.scripts.taquillaQueueJoin(...keys, clientId, newTicketId, beforeStart ? '1' : '0', minNumber, Math.round(keepMs));
    if (number === 'draw') return 'draw';
    return { ticketId, number: number === '' ? null : Number(number) };
  }

  async ticketOf(q: string, clientId: string): Promise<string | null> {
    return this.redis.hget(this.key(q, 'clients'), clientId);
  }

  async counts(q: string): Promise<QueueCounts> {
    const results = await this.redis.multi().hmget(this.key(q, 'meta'), 'drawn', 'last').llen(this.key(q, 'pre')).exec();
    const [[, meta], [, pre]] = results as [[Error | null, (string | null)[]], [Error | null, number]];
    return { drawn: meta[0] === '1', last: Number(meta[1] ?? 0), preQueue: pre };
  }

  async preQueue(q: string): Promise<string[]> {
    return this.redis.lrange(this.key(q, 'pre'), 0, -1);
  }

  async commitDraw(q: string, order: readonly string[], keepMs: number): Promise<boolean> {
    const keys = ['pre', 'numbers', 'meta', 'order'].map((part) => this.key(q, part));
    return (await this.scripts.taquillaQueueDraw(...keys, Math.round(keepMs), ...order)) === 1;
  }

  async drawnOrder(q: string): Promise<string[]> {
    return this.redis.lrange(this.key(q, 'order'), 0, -1);
  }

  async numberOf(q: string, ticketId: string): Promise<number | null> {
    const number = await this.redis.hget(this.key(q, 'numbers'), ticketId);
    return number === null ? null : Number(number);
  }

  async passIssuedAt(q: string, ticketId: string, nowMs: number, keepMs: number): Promise<number> {
    const key = this.key(q, 'passes');
    const results = await this.redis.multi().hsetnx(key, ticketId, nowMs).pexpire(key, Math.round(keepMs)).hget(key, ticketId).exec();
    return Number((results as [Error | null, unknown][])[2]![1]);
  }

  async usePass(q: string, ticketId: string, max: number, ttlMs: number): Promise<boolean> {
    return (await this.scripts.taquillaQueueUsePass(this.key(q, `uses:${ticketId}`), max, Math.max(1, Math.ceil(ttlMs)))) === 1;
  }

  async releasePass(q: string, ticketId: string): Promise<void> {
    await this.redis.decr(this.key(q, `uses:${ticketId}`));
  }

  async once(key: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(`${this.prefix}queue-once:${key}`, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX')) === 'OK';
  }
}

/**
 * Settings of what an operator sees and how the service sheds load (docs/operations.md "Metrics",
 * "Overload protection"), read by `loadConfig` so that a bad value stops the start like every other.
 */
export interface MetricsConfig {
  /** Port of a separate listener that serves only GET /metrics (0: any free port); null = no such listener. */
  port: number | null;
  /** Address of that listener: loopback unless the scraper sits on another machine. */
  host: string;
  /**
   * Bearer token for /metrics: set, the main port serves /metrics to whoever presents it (and the
   * metrics port asks for it too); unset, the main port has no /metrics.
   */
  token: string | undefined;
}

export interface OverloadConfig {
  /** Mean event-loop delay (ms, over each second) past which requests are refused; 0 = never. */
  maxEventLoopDelayMs: number;
  /** Requests waiting for a database connection past which requests are refused; 0 = never (PostgreSQL only). */
  maxPoolWaiting: number;
  /** Retry-After of a refusal, in seconds. */
  retryAfterSeconds: number;
}

type Env = Record<string, string | undefined>;
type Fail = (message: string) => never;

function whole(env: Env, name: string, fallback: number, fail: Fail, min = 0, max = 1_000_000): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) fail(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  return Number(raw);
}

export function loadMetricsConfig(env: Env, fail: Fail): MetricsConfig {
  const token = env.METRICS_TOKEN || undefined;
  // Compared in constant time but never rate limited: it must not be guessable.
  if (token !== undefined && token.length < 16) fail('METRICS_TOKEN must be at least 16 characters');
  const port = env.METRICS_PORT ? whole(env, 'METRICS_PORT', 0, fail, 0, 65535) : null;
  return { port, host: env.METRICS_HOST || '127.0.0.1', token };
}

/**
 * Defaults: refuse past 200 ms of mean event-loop delay over a second (under-pressure's measure: a
 * new request then waits about that long for its first turn, on top of its own work). The test
 * environment keeps it off unless asked: a test machine shared by many runs has pauses (an embedded
 * database loading a catalogue) that are not overload of the service under test.
 */
export function loadOverloadConfig(env: Env, appEnv: string, fail: Fail): OverloadConfig {
  return {
    maxEventLoopDelayMs: whole(env, 'OVERLOAD_MAX_EVENT_LOOP_DELAY_MS', appEnv === 'test' ? 0 : 200, fail),
    maxPoolWaiting: whole(env, 'OVERLOAD_MAX_POOL_WAITING', 0, fail),
    retryAfterSeconds: whole(env, 'OVERLOAD_RETRY_AFTER_SECONDS', 5, fail, 1, 3600),
  };
}

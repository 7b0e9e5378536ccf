/**
 * The one HTTP client of a page (SPEC "Widget" rule 1): it holds the channel's access token, sends
 * it with every call, and when the service answers 401 it asks for a new token once and repeats the
 * call once. Concurrent calls that hit 401 together share a single renewal.
 */
import { createServiceClock, type ServiceClock } from '../../ui/service-clock.js';

export type FetchLike = (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => Promise<{
  status: number;
  json(): Promise<unknown>;
  /** The answer's headers (a fetch Response has them): the service's clock is read off their Date (ui/service-clock.ts). */
  headers?: { get(name: string): string | null };
}>;

/** An error answer of the service (envelope of D4), or `status: 0` when the network failed. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: Record<string, string[]>,
    /** The envelope's `data` of an error, when it has one (the waiting room's `number`, for one). */
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiClientOptions {
  /** `{base_url}` (service address + `/api`), without a trailing slash. */
  baseUrl: string;
  channelSlug: string;
  apiKey: string;
  /** One random id per browser (D38), so one buyer's token does not revoke another's. */
  clientId: string;
  fetch: FetchLike;
}

export interface ApiClient {
  readonly options: ApiClientOptions;
  /** Calls a B2B path under `/sales-channel/v1/{slug}`; resolves with the envelope's `data`. */
  call<T>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  /** Calls the waiting room's public interface, `/queue/v1/sessions{path}` (no token, D60); resolves with the envelope's `data`. */
  queue<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** How many tokens this client obtained (for tests and diagnostics). */
  tokensIssued(): number;
  /** The service's clock, learnt from every answer (the widget's countdowns run on it). */
  clock: ServiceClock;
}

interface Envelope {
  success?: boolean;
  data?: unknown;
  message?: string;
  code?: string;
  errors?: Record<string, string[]>;
}


export function createApiClient(options: ApiClientOptions): ApiClient {
  let token: string | null = null;
  let renewal: Promise<string> | null = null;
  let issued = 0;
  const root = `${options.baseUrl}/sales-channel/v1`;
  const clock = createServiceClock();

  async function send(method: string, url: string, headers: Record<string, string>, body?: unknown) {
    let res;
    try {
      res = await options.fetch(url, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new ApiError(0, 'network_error', err instanceof Error ? err.message : 'Network error');
    }
    let payload: Envelope = {};
    try {
      payload = ((await res.json()) ?? {}) as Envelope;
    } catch {
      payload = {};
    }
    clock.observe(res.headers);
    return { status: res.status, payload };
  }

  function fail(status: number, payload: Envelope): never {
    const data = payload.data && typeof payload.data === 'object' ? (payload.data as Record<string, unknown>) : undefined;
    throw new ApiError(status, payload.code ?? 'http_error', payload.message ?? `HTTP ${status}`, payload.errors, data);
  }

  /** A fresh token; callers arriving during a renewal wait for the same one. */
  function renewToken(): Promise<string> {
    renewal ??= (async () => {
      try {
        const { status, payload } = await send('POST', `${root}/auth/token`, {}, {
          sales_channel_slug: options.channelSlug,
          widget_key: options.apiKey,
          client_id: options.clientId,
        });
        if (status !== 200) fail(status, payload);
        issued += 1;
        token = (payload.data as { access_token: string }).access_token;
        return token;
      } finally {
        renewal = null;
      }
    })();
    return renewal;
  }

  async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const url = `${root}/${encodeURIComponent(options.channelSlug)}${path}`;
    const used = token ?? (await renewToken());
    let { status, payload } = await send(method, url, { ...headers, authorization: `Bearer ${used}` }, body);
    if (status === 401) {
      // Another call may already have renewed the token this one was sent with.
      const fresh = token && token !== used ? token : await renewToken();
      ({ status, payload } = await send(method, url, { ...headers, authorization: `Bearer ${fresh}` }, body));
    }
    if (status < 200 || status >= 300) fail(status, payload);
    return payload.data as T;
  }

  async function queue<T>(method: string, path: string, body?: unknown): Promise<T> {
    const { status, payload } = await send(method, `${options.baseUrl}/queue/v1/sessions${path}`, {}, body);
    if (status < 200 || status >= 300) fail(status, payload);
    return payload.data as T;
  }

  return { options, call, queue, tokensIssued: () => issued, clock };
}

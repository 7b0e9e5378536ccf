/**
 * The typed Taquilla client: openapi-fetch over the types that openapi-typescript generates from
 * the served OpenAPI document (schema.ts, `npm run client:generate`), plus the one thing every
 * channel otherwise writes by hand: the bearer token. The client obtains a token with the channel's
 * key on first use, keeps and reuses it, and after a 401 renews it once and repeats the request
 * (SPEC "Authentication" 3). Everything else is openapi-fetch: `client.GET(path, { params })`,
 * `client.POST(path, { params, body })`, each answer `{ data, error, response }` typed per status.
 *
 *   const taquilla = createTaquillaClient({ baseUrl: 'https://tickets.example.com', salesChannelSlug: 'demo-d', serverKey: 'sk_...' });
 *   const { data } = await taquilla.GET('/api/sales-channel/v1/{salesChannelSlug}/config', { params: { path: { salesChannelSlug: 'demo-d' } } });
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

export interface TaquillaClientOptions {
  /** The service's PUBLIC_BASE_URL, without `/api` (the paths carry it). */
  baseUrl: string;
  salesChannelSlug: string;
  /** The channel's server key (`sk_`, D39): for the channel's own server. Give this or `widgetKey`. */
  serverKey?: string;
  /** The publishable widget key (`wk_`). Give this or `serverKey`. */
  widgetKey?: string;
  /**
   * D38: a new token revokes only the previous token of the same client_id, so each process (or
   * browser) that holds its own token names itself; default 'taquilla-client'.
   */
  clientId?: string;
  /** Another fetch (a proxy, a test's); default globalThis.fetch. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface TaquillaClient extends Client<paths> {
  /** The current bearer token, obtained on first use. */
  token(): Promise<string>;
}

const TOKEN_PATH = '/api/sales-channel/v1/auth/token';
// Only the B2B channel routes take the bearer token; the portal and ticket links are public.
const B2B_PATH = '/api/sales-channel/v1/';

/** A client for one channel; see the file's header. */
export function createTaquillaClient(options: TaquillaClientOptions): TaquillaClient {
  if (Boolean(options.serverKey) === Boolean(options.widgetKey)) throw new Error('give exactly one of serverKey and widgetKey');
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const raw = createClient<paths>({ baseUrl: options.baseUrl, fetch: send });
  let current: Promise<string> | null = null;

  async function obtain(): Promise<string> {
    const key = options.serverKey ? { server_key: options.serverKey } : { widget_key: options.widgetKey! };
    const { data, error, response } = await raw.POST(TOKEN_PATH, {
      body: { sales_channel_slug: options.salesChannelSlug, client_id: options.clientId ?? 'taquilla-client', ...key },
    });
    if (!data) throw new Error(`Taquilla token: ${response.status} ${error?.message ?? ''}`.trim());
    return data.data.access_token;
  }

  const token = (): Promise<string> => {
    // One request for all concurrent callers; a failed one is not kept.
    current ??= obtain().catch((err: unknown) => {
      current = null;
      throw err;
    });
    return current;
  };

  /** Renews unless a concurrent request already did since `stale` was refused. */
  async function renew(stale: string): Promise<string> {
    if ((await token()) === stale) current = null;
    return token();
  }

  async function authorized(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (!path.startsWith(B2B_PATH) || path === TOKEN_PATH) return send(request);
    // The body can be read once: keep a copy for the repeat after a 401.
    const copy = request.clone();
    const bearer = await token();
    request.headers.set('authorization', `Bearer ${bearer}`);
    const first = await send(request);
    if (first.status !== 401) return first;
    await first.body?.cancel();
    copy.headers.set('authorization', `Bearer ${await renew(bearer)}`);
    return send(copy);
  }

  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch: authorized });
  return Object.assign(client, { token });
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, tokenFor, type TestApp } from '../../test/helpers.js';
import { ApiError, createApiClient } from '../src/http.js';
import { injectFetch } from './inject-fetch.js';

// The widget's HTTP client against the real service (token endpoint, bearer hook, config).
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { AUTH_CACHE_MS: '0' } });
}, 180_000); // a fresh database with demo data is slow on a loaded machine
afterAll(() => t.close());

const BASE = 'http://taquilla.test/api';

function client(clientId = 'browser-a', apiKey = 'wk_demo_d') {
  const net = injectFetch(t.app);
  const api = createApiClient({ baseUrl: BASE, channelSlug: 'demo-d', apiKey, clientId, fetch: net.fetch });
  return { api, net };
}

describe('widget HTTP client', () => {
  it('gets a token with its client_id once and reuses it', async () => {
    const { api, net } = client();
    const config = await api.call<{ integration_mode: string }>('GET', '/config');
    expect(config.integration_mode).toBe('widget_external_payment');
    await api.call('GET', '/config');
    const tokenCalls = net.calls.filter((c) => c.path.endsWith('/auth/token'));
    expect(tokenCalls).toHaveLength(1);
    expect(tokenCalls[0]!.body).toEqual({ sales_channel_slug: 'demo-d', widget_key: 'wk_demo_d', client_id: 'browser-a' });
    const configCalls = net.calls.filter((c) => c.path.endsWith('/config'));
    expect(configCalls.map((c) => c.authorization)).toEqual([configCalls[0]!.authorization, configCalls[0]!.authorization]);
    expect(api.tokensIssued()).toBe(1);
  });

  it('renews the token on 401 and retries the call once', async () => {
    const { api, net } = client('browser-b');
    await api.call('GET', '/config');
    // A new token for the same client_id revokes the widget's one (D38), as a second tab would.
    await tokenFor(t.app, 'demo-d', 'wk_demo_d', 'browser-b');
    const config = await api.call<{ sales_channel_slug: string }>('GET', '/config');
    expect(config.sales_channel_slug).toBe('demo-d');
    expect(net.calls.map((c) => `${c.method} ${c.path.split('/').pop()} ${c.status}`)).toEqual([
      'POST token 200',
      'GET config 200',
      'GET config 401',
      'POST token 200',
      'GET config 200',
    ]);
    expect(api.tokensIssued()).toBe(2);
  });

  it('concurrent calls that meet a 401 share one renewal', async () => {
    const { api, net } = client('browser-c');
    await api.call('GET', '/config');
    await tokenFor(t.app, 'demo-d', 'wk_demo_d', 'browser-c');
    await Promise.all([api.call('GET', '/config'), api.call('GET', '/config'), api.call('GET', '/config')]);
    expect(net.calls.filter((c) => c.path.endsWith('/auth/token'))).toHaveLength(2);
    expect(api.tokensIssued()).toBe(2);
  });

  it('does not loop when the key itself is refused: one token attempt, then the 401', async () => {
    const { api, net } = client('browser-d', 'wk_wrong');
    const err = await api.call('GET', '/config').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 401, code: 'invalid_credentials' });
    expect(net.calls).toHaveLength(1);
  });

  it('turns error envelopes into ApiError with code, message and field errors', async () => {
    const { api } = client('browser-e');
    const err = (await api.call('GET', '/es/no-such-route').catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(404);
    expect(err.code).toBe('route_not_found');
  });

  it('reports a dropped connection as a network error (status 0)', async () => {
    const { api, net } = client('browser-f');
    await api.call('GET', '/config');
    net.failNext();
    await expect(api.call('GET', '/config')).rejects.toMatchObject({ status: 0, code: 'network_error' });
    await expect(api.call('GET', '/config')).resolves.toMatchObject({ sales_channel_slug: 'demo-d' });
  });
});

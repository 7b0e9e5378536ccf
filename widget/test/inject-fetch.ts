import type { FastifyInstance } from 'fastify';
import type { FetchLike } from '../src/http.js';

interface RecordedCall {
  method: string;
  path: string;
  status: number;
  authorization?: string;
  body?: unknown;
}

/**
 * A `fetch` for the widget's HTTP client that talks to a real app in-process (`app.inject`), with
 * every call recorded. `failNext` makes the next calls fail like a dropped connection.
 */
export function injectFetch(app: FastifyInstance, origin = 'http://taquilla.test') {
  const calls: RecordedCall[] = [];
  let failures = 0;
  const fetch: FetchLike = async (url, init) => {
    const path = url.startsWith(origin) ? url.slice(origin.length) : url;
    if (failures > 0) {
      failures -= 1;
      throw new TypeError('Failed to fetch');
    }
    const res = await app.inject({
      method: init.method as 'GET',
      url: path,
      headers: init.headers,
      payload: init.body,
    });
    calls.push({
      method: init.method,
      path,
      status: res.statusCode,
      authorization: init.headers.authorization,
      body: init.body ? JSON.parse(init.body) : undefined,
    });
    const text = res.body;
    return { status: res.statusCode, json: async () => (text ? JSON.parse(text) : null) };
  };
  return {
    fetch,
    calls,
    failNext(n = 1) {
      failures = n;
    },
  };
}

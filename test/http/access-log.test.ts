import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers.js';

// The service's own logger (src/app.ts): one line per answered request, and no credential in any
// line. The request is logged by its id, method and path only; the Authorization and Cookie headers,
// the query string and a ticket's code never reach the output.
describe('access log', () => {
  const lines: string[] = [];
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { LOG_LEVEL: 'info' }, logStream: { write: (line) => void lines.push(line) } });
  });
  afterAll(() => t.close());

  const logged = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

  it('logs each answered request once, by id, method and path, with its status and time', async () => {
    const token = await t.app.inject({ method: 'POST', url: '/api/sales-channel/v1/auth/token', payload: { sales_channel_slug: 'demo-d', widget_key: 'wk_demo_d' } });
    expect(token.statusCode).toBe(200);
    const line = await vi.waitFor(() => {
      const completed = logged().find((l) => l.msg === 'request completed');
      if (!completed) throw new Error('the request is not logged yet');
      return completed;
    });
    expect(line).toMatchObject({ level: 30, req: { method: 'POST', path: '/api/sales-channel/v1/auth/token' }, res: { statusCode: 200 } });
    expect(Object.keys(line.req as object).sort()).toEqual(['id', 'method', 'path']);
    expect(typeof line.responseTime).toBe('number');
    expect(logged().some((l) => l.msg === 'incoming request')).toBe(false);
  });

  it('writes no bearer token, cookie, query string or ticket code', async () => {
    const token = (await t.app.inject({ method: 'POST', url: '/api/sales-channel/v1/auth/token', payload: { sales_channel_slug: 'demo-d', widget_key: 'wk_demo_d' } })).json().data.access_token as string;
    lines.length = 0;
    const answers = await Promise.all([
      t.app.inject({ method: 'GET', url: '/api/sales-channel/v1/demo-d/config?signature=sig-secret-1', headers: { authorization: `Bearer ${token}`, cookie: 'tq_buyer=cookie-secret-2' } }),
      t.app.inject({ method: 'GET', url: '/api/sales-channel/v1/demo-d/config', headers: { authorization: 'Bearer tk_unknown-secret-3' } }),
      t.app.inject({ method: 'GET', url: '/api/tickets/TicketCodeSecret4.pdf?expires=1&signature=sig-secret-5' }),
    ]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 401, expect.any(Number)]);
    // Fastify writes a request's line after its onResponse hooks, which may still await the
    // database (the integration checklist's step) when inject has the answer.
    await vi.waitFor(() => expect(lines).toHaveLength(3));
    const text = lines.join('');
    for (const secret of [token, 'cookie-secret-2', 'sig-secret-1', 'tk_unknown-secret-3', 'TicketCodeSecret4', 'sig-secret-5']) expect(text).not.toContain(secret);
    expect(logged().map((l) => (l.req as { path: string }).path).sort()).toEqual([
      '/api/sales-channel/v1/demo-d/config',
      '/api/sales-channel/v1/demo-d/config',
      '/api/tickets/[redacted]',
    ]);
  });
});

import type { FastifyInstance } from 'fastify';
import { PASSWORD } from './admin-helpers.js';

/** A browser-like client of the dashboard over app.inject: keeps cookies, reads CSRF tokens. */
export class DashboardClient {
  cookies = new Map<string, string>();
  csrf = '';
  constructor(
    private readonly app: FastifyInstance,
    private readonly ip = '127.0.0.1',
  ) {}

  private remember(setCookie: string | string[] | undefined) {
    for (const line of [setCookie ?? []].flat()) {
      const [pair, ...attrs] = line.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      const expired = attrs.some((a) => /expires=Thu, 01 Jan 1970/i.test(a) || /max-age=0\b/i.test(a.trim()));
      if (expired || value === '') this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
  }

  private cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string) {
    const res = await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader() }, remoteAddress: this.ip });
    this.remember(res.headers['set-cookie']);
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (token) this.csrf = token[1]!;
    return res;
  }

  async post(url: string, form: Record<string, string | string[]> = {}, opts: { csrf?: string | null } = {}) {
    const params = new URLSearchParams();
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (csrf !== null) params.append('_csrf', csrf);
    for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) params.append(k, one);
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: params.toString(),
      remoteAddress: this.ip,
    });
    this.remember(res.headers['set-cookie']);
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (token) this.csrf = token[1]!;
    return res;
  }

  async login(email: string, password = PASSWORD) {
    await this.get('/admin/login');
    const res = await this.post('/admin/login', { email, password });
    if (res.statusCode === 303) await this.get('/admin/channels');
    return res;
  }
}

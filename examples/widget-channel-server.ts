/**
 * A small sales-channel web site, for reading and for trying the widget locally:
 * - `/model-c.html`: a partner page of a model C channel (`demo-c`); the widget's checkout button
 *   sends the buyer to the service's portal to pay.
 * - `/model-d.html`: a partner page of a model D channel (`demo-d`); the page has its own pay
 *   button, this server confirms the payment with the service (server to server, with the
 *   channel's SERVER KEY `sk_...`) and the page then calls `notifyPaymentComplete`.
 * The pages carry only the publishable widget key (`wk_...`): in models C and D its tokens cannot
 * confirm nor read the sales report (DECISIONS D40). The server key stays on this server.
 * Server keys: SERVER_KEY_C / SERVER_KEY_D, default the demo keys `sk_demo_c` / `sk_demo_d` (D43).
 * - `/model-b/checkout?order_token=...`: the checkout page of a model B channel (`demo-b`, whose
 *   demo `checkout_url` it is): the portal sends the buyer here, this server "takes the payment",
 *   confirms with the service and sends the buyer to the portal's order page with the tickets.
 * Add `?hostile=1` to either page to load a stylesheet that tries to break the widget.
 *
 * Run alone: `npm run examples` (service at SERVICE_URL, default PUBLIC_BASE_URL, else
 * http://localhost:3000). The service also mounts it at `/widget/examples/` when APP_ENV=development,
 * so `npm start` shows it, at the service's own address (PUBLIC_BASE_URL, PORT).
 */
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyPluginAsync } from 'fastify';

export interface ChannelExampleOptions {
  /** Service address without `/api` (PUBLIC_BASE_URL). */
  serviceUrl: string;
  /** Where the widget script is served (WIDGET_URL). */
  widgetUrl: string;
  channels?: { b?: ExampleChannel; c: ExampleChannel; d: ExampleChannel };
}

/** A channel of the example: its widget key goes into the page, its server key never leaves this server. */
export interface ExampleChannel {
  slug: string;
  /** The publishable widget key (`wk_`), put in the page for the widget. */
  key: string;
  /** The server key (`sk_`, D39): this server's own token, the one that may confirm. */
  serverKey: string;
}

const DEMO_CHANNELS = {
  b: { slug: 'demo-b', key: 'wk_demo_b', serverKey: process.env.SERVER_KEY_B || 'sk_demo_b' },
  c: { slug: 'demo-c', key: 'wk_demo_c', serverKey: process.env.SERVER_KEY_C || 'sk_demo_c' },
  d: { slug: 'demo-d', key: 'wk_demo_d', serverKey: process.env.SERVER_KEY_D || 'sk_demo_d' },
};
const template = (name: string) => readFileSync(fileURLToPath(new URL(`./${name}`, import.meta.url)), 'utf8');
const PAGES = { 'model-c': template('model-c.html'), 'model-d': template('model-d.html') };
const HOSTILE_CSS = '* { all: unset !important; } div { display: none !important; } section, main { display: block; }';

interface SessionOption {
  id: number;
  label: string;
}

/**
 * A tiny B2B client of the channel's own server: a server-scope token (D39) from the server key,
 * with its own client_id (D38).
 */
function serviceClient(serviceUrl: string, slug: string, serverKey: string) {
  const api = `${serviceUrl.replace(/\/+$/, '')}/api/sales-channel/v1`;
  let token: string | null = null;
  async function renew() {
    const res = await fetch(`${api}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sales_channel_slug: slug, server_key: serverKey, client_id: 'channel-server' }),
    });
    if (!res.ok) throw new Error(`token: HTTP ${res.status}`);
    token = ((await res.json()) as { data: { access_token: string } }).data.access_token;
    return token;
  }
  return async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const bearer = token ?? (await renew());
      const res = await fetch(`${api}/${slug}${path}`, {
        method,
        headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status === 401 && attempt === 0) {
        token = null;
        continue;
      }
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    }
    throw new Error('unreachable');
  };
}

async function sessionsOf(call: ReturnType<typeof serviceClient>, lang: string): Promise<SessionOption[]> {
  // Times in the deployment's zone (the config's `timezone`), as the widget, the portal and the
  // tickets write them; not in this server's own zone.
  const config = await call('GET', '/config');
  const timeZone = (config.body.data as { timezone?: string } | undefined)?.timezone;
  const res = await call('GET', `/${lang}/events`);
  const events = (res.body.data ?? []) as { id: number; name?: string; sessions?: { id: number; start_datetime?: string }[] }[];
  if (!Array.isArray(events)) return [];
  return events.flatMap((e) =>
    (e.sessions ?? []).map((s) => ({
      id: s.id,
      label: `${e.name ?? `#${e.id}`} · ${s.start_datetime ? new Date(s.start_datetime).toLocaleString(lang === 'en' ? 'en-GB' : 'es-ES', { dateStyle: 'medium', timeStyle: 'short', timeZone }) : s.id}`,
    })),
  );
}

// JSON inside <script>: `<` escaped so no value can close the script element.
const inlineJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export const channelExample: FastifyPluginAsync<ChannelExampleOptions> = async (app, opts) => {
  const channels = opts.channels ?? DEMO_CHANNELS;
  const clients = {
    c: serviceClient(opts.serviceUrl, channels.c.slug, channels.c.serverKey),
    d: serviceClient(opts.serviceUrl, channels.d.slug, channels.d.serverKey),
  };
  const widgetScript = `${opts.widgetUrl.replace(/\/+$/, '')}/v1/widget.iife.js`;

  app.get('/', async (request, reply) => {
    // Relative links below need the trailing slash.
    if (!request.url.split('?')[0]!.endsWith('/')) return reply.redirect(`${request.url.split('?')[0]}/`);
    return reply.type('text/html; charset=utf-8').send(`<!doctype html><html lang="en"><meta charset="utf-8"><title>Taquilla widget examples</title>
<body>
<h1>Taquilla widget examples</h1>
<ul>
<li><a href="model-c.html">Model C</a>: widget with checkout in the service's portal (<code>${channels.c.slug}</code>)</li>
<li><a href="model-d.html">Model D</a>: widget, the channel takes the payment and confirms it server-side (<code>${channels.d.slug}</code>)</li>
<li><a href="model-d.html?hostile=1">Model D with a hostile host stylesheet</a></li>
</ul></body></html>`);
  });

  for (const model of ['c', 'd'] as const) {
    app.get(`/model-${model}.html`, async (request, reply) => {
      const query = request.query as { lang?: string; session?: string; hostile?: string };
      const lang = query.lang === 'en' ? 'en' : 'es';
      let sessions: SessionOption[] = [];
      try {
        sessions = await sessionsOf(clients[model], lang);
      } catch (err) {
        request.log.warn({ err }, 'example: cannot list sessions');
      }
      // Served by the service, the page has a Content-Security-Policy (D50): its inline script and
      // styles carry the reply's nonce. Alone (npm run examples) there is neither.
      const nonce = reply.cspNonce ?? { script: '', style: '' };
      const page = PAGES[`model-${model}`]
        .replaceAll('__SCRIPT_NONCE__', nonce.script)
        .replaceAll('__STYLE_NONCE__', nonce.style)
        .replace('__HOSTILE_CSS__', query.hostile ? `<style id="hostile" nonce="${nonce.style}">${HOSTILE_CSS}</style>` : '')
        .replace('__WIDGET_SCRIPT__', widgetScript)
        .replace(
          '__EXAMPLE_JSON__',
          inlineJson({ slug: channels[model].slug, widgetKey: channels[model].key, lang, sessions, sessionId: Number(query.session) || sessions[0]?.id || null }),
        );
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page);
    });
  }

  /**
   * Model D's payment step, on the channel's server: the channel charges the buyer with its own
   * provider (simulated here), then confirms the order with the service. The amount declared is the
   * order total the service holds; a real shop charges exactly that amount.
   */
  await app.register(formbody);
  registerModelBCheckout(app, opts.serviceUrl, channels.b ?? DEMO_CHANNELS.b);

  app.post('/api/pay', async (request, reply) => {
    const body = (request.body ?? {}) as { order_token?: string; name?: string; surname?: string; email?: string; lang?: string };
    if (!body.order_token || !/^[\w-]{1,100}$/.test(body.order_token)) return reply.status(422).send({ message: 'order_token is required' });
    const lang = body.lang === 'en' ? 'en' : 'es';
    const call = clients.d;
    const orderPath = `/${lang}/orders/${encodeURIComponent(body.order_token)}`;
    const order = await call('GET', orderPath);
    if (order.status !== 200) return reply.status(order.status).send(order.body);
    const total = (order.body.data as { total_amount: number }).total_amount;
    const confirm = await call('POST', `${orderPath}/confirm`, {
      transaction_id: `demo-${crypto.randomUUID()}`,
      amount: total,
      payment_method: 'demo_card',
      name: body.name || 'Ana',
      surname: body.surname || 'García',
      email: body.email || 'ana@example.com',
    });
    return reply.status(confirm.status).send(confirm.body);
  });
};

const escapeHtml = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Model B's checkout page on the channel's side: the portal sends the buyer to the channel's
 * `checkout_url` with the order token; the channel takes the payment (simulated), confirms with its
 * server key and sends the buyer back to the portal's order page, where the tickets are.
 */
function registerModelBCheckout(app: Parameters<FastifyPluginAsync>[0], serviceUrl: string, channel: ExampleChannel) {
  const call = serviceClient(serviceUrl, channel.slug, channel.serverKey);
  // The order as SPEC's model B reads it: the public portal read (the cart was built on the portal).
  const readOrder = async (token: string) => {
    const res = await fetch(`${serviceUrl.replace(/\/+$/, '')}/api/portal/${channel.slug}/es/orders/${encodeURIComponent(token)}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const tokenOf = (raw: unknown) => (typeof raw === 'string' && /^[\w-]{8,100}$/.test(raw) ? raw : null);
  const page = (title: string, body: string) =>
    `<!doctype html><html lang="es"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;

  app.get('/model-b/checkout', async (request, reply) => {
    const token = tokenOf((request.query as { order_token?: unknown }).order_token);
    const order = token ? await readOrder(token) : null;
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
    if (!order || order.status !== 200) return reply.status(404).send(page('Pedido no encontrado', '<p>El pedido no existe.</p>'));
    const data = order.body.data as { reference: string; total_amount: number; currency: string };
    const total = new Intl.NumberFormat('es-ES', { style: 'currency', currency: data.currency }).format(data.total_amount);
    return reply.send(
      page(
        `Pago: pedido ${data.reference}`,
        `<p>Total <strong id="total">${escapeHtml(total)}</strong> (pago de demostración: siempre se acepta)</p>
<form method="post"><input type="hidden" name="order_token" value="${escapeHtml(token)}">
<p><label>Nombre <input name="name" required value="Ana"></label></p>
<p><label>Apellidos <input name="surname" required value="García"></label></p>
<p><label>E-mail <input name="email" type="email" required value="ana@example.com"></label></p>
<button type="submit">Pagar ${escapeHtml(total)}</button></form>`,
      ),
    );
  });

  app.post('/model-b/checkout', async (request, reply) => {
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    const token = tokenOf(form.order_token);
    const order = token ? await readOrder(token) : null;
    if (!token || !order || order.status !== 200) return reply.status(404).type('text/html; charset=utf-8').send(page('Pedido no encontrado', ''));
    const confirm = await call('POST', `/es/orders/${encodeURIComponent(token)}/confirm`, {
      transaction_id: `demo-${crypto.randomUUID()}`,
      amount: (order.body.data as { total_amount: number }).total_amount,
      payment_method: 'demo_card',
      name: form.name || 'Ana',
      surname: form.surname || 'García',
      email: form.email || 'ana@example.com',
    });
    if (confirm.status !== 200) {
      return reply.status(confirm.status).type('text/html; charset=utf-8').send(page('No se pudo completar', `<p>${escapeHtml(confirm.body.message)}</p>`));
    }
    // The way back: the portal's order page shows the tickets (model B gets the ticket e-mail too).
    return reply.redirect(`${serviceUrl.replace(/\/+$/, '')}/${channel.slug}/es/orders/${encodeURIComponent(token)}`, 303);
  });
}

/**
 * Standalone: `tsx examples/widget-channel-server.ts` (PORT default 4100; SERVICE_URL default the
 * service's PUBLIC_BASE_URL, else http://localhost:3000).
 */
async function main() {
  const serviceUrl = process.env.SERVICE_URL || process.env.PUBLIC_BASE_URL || 'http://localhost:3000';
  const app = Fastify({ logger: { level: 'info' } });
  await app.register(channelExample, { serviceUrl, widgetUrl: process.env.WIDGET_URL || `${serviceUrl}/widget` });
  const address = await app.listen({ port: Number(process.env.PORT || 4100), host: process.env.HOST || '127.0.0.1' });
  app.log.info(`examples at ${address}/ (service ${serviceUrl})`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void main();

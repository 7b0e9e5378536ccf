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
 * Add `?hostile=1` to either page to load a stylesheet that tries to break the widget.
 *
 * Run alone: `npm run examples` (service at SERVICE_URL, default http://localhost:3000). The service
 * also mounts it at `/widget/examples/` when APP_ENV=development, so `npm start` shows it.
 */
import crypto from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyPluginAsync } from 'fastify';
import { createTaquillaClient, type TaquillaClient } from '../clients/typescript/index.js';

export interface ChannelExampleOptions {
  /** Service address without `/api` (PUBLIC_BASE_URL). */
  serviceUrl: string;
  /** Where the widget script is served (WIDGET_URL). */
  widgetUrl: string;
  channels?: { c: ExampleChannel; d: ExampleChannel };
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
 * The channel's own server talks to the service through the typed client (clients/typescript): a
 * server-scope token (D39) from the server key, with its own client_id (D38), renewed after a 401.
 */
const serviceClient = (serviceUrl: string, slug: string, serverKey: string) =>
  createTaquillaClient({ baseUrl: serviceUrl.replace(/\/+$/, ''), salesChannelSlug: slug, serverKey, clientId: 'channel-server' });

async function sessionsOf(client: TaquillaClient, slug: string, lang: string): Promise<SessionOption[]> {
  const res = await client.GET('/api/sales-channel/v1/{salesChannelSlug}/{lang}/events', { params: { path: { salesChannelSlug: slug, lang } } });
  return (res.data?.data ?? []).flatMap((e) =>
    e.sessions.map((s) => ({
      id: s.id,
      label: `${e.name ?? `#${e.id}`} · ${new Date(s.start_datetime).toLocaleString(lang === 'en' ? 'en-GB' : 'es-ES', { dateStyle: 'medium', timeStyle: 'short' })}`,
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
        sessions = await sessionsOf(clients[model], channels[model].slug, lang);
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
  app.post('/api/pay', async (request, reply) => {
    const body = (request.body ?? {}) as { order_token?: string; name?: string; surname?: string; email?: string; lang?: string };
    if (!body.order_token || !/^[\w-]{1,100}$/.test(body.order_token)) return reply.status(422).send({ message: 'order_token is required' });
    const lang = body.lang === 'en' ? 'en' : 'es';
    const path = { salesChannelSlug: channels.d.slug, lang, orderToken: body.order_token };
    const order = await clients.d.GET('/api/sales-channel/v1/{salesChannelSlug}/{lang}/orders/{orderToken}', { params: { path } });
    if (!order.data) return reply.status(order.response.status).send(order.error);
    const confirm = await clients.d.POST('/api/sales-channel/v1/{salesChannelSlug}/{lang}/orders/{orderToken}/confirm', {
      params: { path },
      body: {
        transaction_id: `demo-${crypto.randomUUID()}`,
        amount: order.data.data.total_amount,
        payment_method: 'demo_card',
        name: body.name || 'Ana',
        surname: body.surname || 'García',
        email: body.email || 'ana@example.com',
      },
    });
    return reply.status(confirm.response.status).send(confirm.data ?? confirm.error);
  });
};

/** Standalone: `tsx examples/widget-channel-server.ts` (PORT default 4100, SERVICE_URL default :3000). */
async function main() {
  const serviceUrl = process.env.SERVICE_URL || 'http://localhost:3000';
  const app = Fastify({ logger: { level: 'info' } });
  await app.register(channelExample, { serviceUrl, widgetUrl: process.env.WIDGET_URL || `${serviceUrl}/widget` });
  const address = await app.listen({ port: Number(process.env.PORT || 4100), host: process.env.HOST || '127.0.0.1' });
  app.log.info(`examples at ${address}/ (service ${serviceUrl})`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void main();

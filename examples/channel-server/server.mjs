// A sales channel's own server for models B and D (portal_external_payment, widget_external_payment).
// It stands for the channel's shop: it reads the order from Taquilla's public portal read, takes the
// payment (here: a demo that always succeeds) and then calls confirm FROM THE SERVER with its own
// bearer token, as SPEC "Payment confirmation" rule 4 requires. Its token comes from the channel's
// SERVER KEY (`sk_`, DECISIONS D39): in model D only a server-key token may confirm, and the widget
// key in the buyer's page cannot (403 server_credential_required). No build step, no dependencies:
//
//   TAQUILLA_URL=http://localhost:3000 CHANNEL_SLUG=demo-d SERVER_KEY=sk_demo_d node examples/channel-server/server.mjs
//
// Model B: the portal sends the buyer to GET /checkout?order_token=... (set demo-b's checkout_url
// to http://localhost:4000/checkout to use this server; the demo's own is the service's example page).
// TAQUILLA_URL defaults to the service's PUBLIC_BASE_URL, so one environment serves both. Model D: the host page's own pay button posts the widget's order
// token to POST /api/pay. Never put the server key or its bearer token in a browser: Taquilla
// refuses both when a request carries an Origin header (403 browser_origin_refused).
// SERVER_KEY defaults to the demo server key of CHANNEL_SLUG (sk_demo_b, sk_demo_d: D43).
import http from 'node:http';
import crypto from 'node:crypto';

const TAQUILLA_URL = (process.env.TAQUILLA_URL || process.env.PUBLIC_BASE_URL || 'http://localhost:3000').replace(/\/+$/, '');
const CHANNEL_SLUG = process.env.CHANNEL_SLUG || 'demo-b';
const SERVER_KEY = process.env.SERVER_KEY || `sk_${CHANNEL_SLUG.replace(/-/g, '_')}`;
const LANG = process.env.CHECKOUT_LANG || 'es';
const PORT = Number(process.env.PORT ?? 4000);
const B2B = `${TAQUILLA_URL}/api/sales-channel/v1`;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

// ---- Taquilla client -------------------------------------------------------------------------

let accessToken = null;

/** A bearer token, kept and reused; renewed when Taquilla answers 401 (SPEC Authentication 3). */
async function getToken(renew = false) {
  if (accessToken && !renew) return accessToken;
  const res = await fetch(`${B2B}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // One client_id for this server, so it never revokes the tokens of the channel's widgets (D38).
    body: JSON.stringify({ sales_channel_slug: CHANNEL_SLUG, server_key: SERVER_KEY, client_id: 'channel-server' }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`token: ${res.status} ${body.message}`);
  accessToken = body.data.access_token;
  return accessToken;
}

async function b2bPost(path, payload) {
  for (const renew of [false, true]) {
    const res = await fetch(`${B2B}/${CHANNEL_SLUG}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await getToken(renew)}` },
      body: JSON.stringify(payload),
    });
    if (res.status === 401 && !renew) continue;
    return { status: res.status, body: await res.json() };
  }
}

/** The order from the public portal read: the amount to charge comes from here, never from the browser. */
async function readOrder(orderToken) {
  const res = await fetch(`${TAQUILLA_URL}/api/portal/${CHANNEL_SLUG}/${LANG}/orders/${encodeURIComponent(orderToken)}`);
  if (res.status === 404) return null;
  const body = await res.json();
  if (!res.ok) throw new Error(`portal read: ${res.status} ${body.message}`);
  return body.data;
}

/** Confirm after the payment was collected: idempotent, so a retry after a timeout is safe (D22). */
function confirm(order, buyer, transactionId) {
  return b2bPost(`/${LANG}/orders/${encodeURIComponent(order.order_token)}/confirm`, {
    amount: order.total_amount,
    transaction_id: transactionId,
    payment_method: 'card',
    name: buyer.name,
    surname: buyer.surname,
    email: buyer.email,
    ...(buyer.phone ? { phone: buyer.phone } : {}),
  });
}

/** Stand-in for the channel's payment provider: always succeeds with a new transaction id. */
async function collectPayment(order) {
  return { ok: true, transactionId: `demo-${crypto.randomUUID()}`, amount: order.total_amount };
}

// ---- pages -----------------------------------------------------------------------------------

const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const money = (amount, currency) => new Intl.NumberFormat('es-ES', { style: 'currency', currency }).format(amount);

function page(title, body, status = 200) {
  return {
    status,
    type: 'text/html; charset=utf-8',
    body: `<!doctype html><html lang="${LANG}"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:.5rem 0}
input{width:100%;padding:.4rem}table{width:100%;border-collapse:collapse}td{padding:.2rem 0}.total{font-weight:bold}</style>
</head><body><h1>${esc(title)}</h1>${body}</body></html>`,
  };
}

function orderTable(order) {
  const rows = order.events.flatMap((e) =>
    e.sessions.flatMap((s) =>
      s.items.map(
        (i) => `<tr><td>${esc(e.name)} · ${esc(new Date(s.start_datetime).toLocaleString('es-ES'))}</td>
<td>${esc(i.sector_name)}${i.row ? ` · fila ${esc(i.row)}, butaca ${esc(i.number)}` : ''} · ${esc(i.rate_name)}</td>
<td>${esc(money(i.total_amount, order.currency))}</td></tr>`,
      ),
    ),
  );
  return `<p>Pedido <strong>${esc(order.reference)}</strong></p><table>${rows.join('')}
<tr class="total"><td colspan="2">Total</td><td id="total">${esc(money(order.total_amount, order.currency))}</td></tr></table>`;
}

const ticketList = (urls) =>
  `<ul class="tickets">${urls.map((u, n) => `<li><a href="${esc(u)}">Entrada ${n + 1} (PDF)</a></li>`).join('')}</ul>`;

async function checkoutPage(orderToken) {
  if (!TOKEN_PATTERN.test(orderToken ?? '')) return page('Pedido no encontrado', '<p>Falta el pedido.</p>', 404);
  const order = await readOrder(orderToken);
  if (!order) return page('Pedido no encontrado', '<p>El pedido no existe.</p>', 404);
  if (order.status !== 'pending') {
    return page('Pedido no disponible', `${orderTable(order)}<p>Estado del pedido: <strong>${esc(order.status)}</strong>.</p>`, 409);
  }
  return page(
    'Pago',
    `${orderTable(order)}
<form method="post" action="/checkout">
<input type="hidden" name="order_token" value="${esc(order.order_token)}">
<label>Nombre <input name="name" required></label>
<label>Apellidos <input name="surname" required></label>
<label>E-mail <input name="email" type="email" required></label>
<label>Teléfono <input name="phone"></label>
<label>Tarjeta (demo) <input name="card" value="4242 4242 4242 4242"></label>
<button type="submit">Pagar ${esc(money(order.total_amount, order.currency))}</button>
</form>`,
  );
}

/** Pay and confirm; returns { status, result } where result is Taquilla's confirm answer. */
async function payAndConfirm(orderToken, buyer) {
  if (!TOKEN_PATTERN.test(orderToken ?? '')) return { status: 404, error: 'Order not found' };
  const order = await readOrder(orderToken);
  if (!order) return { status: 404, error: 'Order not found' };
  let transactionId = null;
  if (order.status === 'pending') {
    const payment = await collectPayment(order);
    if (!payment.ok) return { status: 402, error: 'Payment declined' };
    transactionId = payment.transactionId;
  }
  // Already completed: confirm again anyway; it answers 200 with the same tickets (D22).
  const res = await confirm(order, buyer, transactionId);
  if (res.status !== 200) return { status: res.status, error: res.body.message, errors: res.body.errors };
  return { status: 200, order: res.body.data };
}

async function readBody(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 64 * 1024) throw Object.assign(new Error('body too large'), { status: 413 });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(req) {
  const url = new URL(req.url, 'http://localhost');
  if (req.method === 'GET' && url.pathname === '/healthz') return { status: 200, type: 'text/plain', body: 'ok' };
  if (req.method === 'GET' && url.pathname === '/checkout') return checkoutPage(url.searchParams.get('order_token'));
  if (req.method === 'POST' && url.pathname === '/checkout') {
    const form = new URLSearchParams(await readBody(req));
    const buyer = { name: form.get('name'), surname: form.get('surname'), email: form.get('email'), phone: form.get('phone') };
    const r = await payAndConfirm(form.get('order_token'), buyer);
    if (r.status !== 200) {
      const details = r.errors ? `<ul>${Object.entries(r.errors).map(([k, v]) => `<li>${esc(k)}: ${esc(v.join(', '))}</li>`).join('')}</ul>` : '';
      return page('No se pudo completar', `<p>${esc(r.error)}</p>${details}`, r.status);
    }
    return page('¡Gracias!', `${orderTable(r.order)}<p>Tus entradas:</p>${ticketList(r.order.ticket_pdf_urls)}`);
  }
  if (req.method === 'POST' && url.pathname === '/api/pay') {
    // Model D: the host page's pay button sends the widget's order token and the buyer here.
    const body = JSON.parse((await readBody(req)) || '{}');
    const r = await payAndConfirm(body.order_token, body);
    return { status: r.status, type: 'application/json', body: JSON.stringify(r.status === 200 ? { ticket_pdf_urls: r.order.ticket_pdf_urls, reference: r.order.reference } : { error: r.error, errors: r.errors }) };
  }
  return { status: 404, type: 'text/plain', body: 'not found' };
}

const server = http.createServer(async (req, res) => {
  let out;
  try {
    out = await handle(req);
  } catch (err) {
    console.error(err);
    out = { status: err.status ?? 502, type: 'text/plain', body: 'Taquilla could not be reached; try again' };
  }
  res.writeHead(out.status, { 'content-type': out.type });
  res.end(out.body);
});

server.listen(PORT, () => {
  console.log(`channel server for ${CHANNEL_SLUG} listening on http://localhost:${server.address().port} (Taquilla at ${TAQUILLA_URL})`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));

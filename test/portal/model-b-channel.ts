import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A minimal model B channel web site for the end-to-end test: its checkout page reads
 * `order_token`, reads the order through the public portal API, takes the "payment" and confirms
 * it with the service from its own server (SPEC Redirects 1, Payment confirmation).
 */
export async function startModelBChannel(serviceUrl: string, slug = 'demo-b', widgetKey = 'wk_demo_b') {
  const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const page = (body: string) => `<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Tienda B</title></head><body><main>${body}</main></body></html>`;
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://channel');
      if (req.method === 'GET' && url.pathname === '/checkout') {
        const token = url.searchParams.get('order_token') ?? '';
        const read = await fetch(`${serviceUrl}/api/portal/${slug}/es/orders/${encodeURIComponent(token)}`);
        const order = ((await read.json()) as { data: { total_amount: number; order_token: string } }).data;
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end(
          page(`<h1>Pago en Tienda B</h1><p>Pedido <span id="token">${esc(order.order_token)}</span>, total <strong id="total">${esc(order.total_amount)}</strong> EUR</p>
<form method="post" action="/pay"><input type="hidden" name="order_token" value="${esc(order.order_token)}"><input type="hidden" name="amount" value="${esc(order.total_amount)}">
<label for="email">Email</label><input id="email" name="email"><button type="submit">Pagar en la tienda</button></form>`),
        );
        return;
      }
      if (req.method === 'POST' && url.pathname === '/pay') {
        let raw = '';
        for await (const chunk of req) raw += chunk;
        const form = new URLSearchParams(raw);
        const api = `${serviceUrl}/api/sales-channel/v1`;
        const tokenRes = await fetch(`${api}/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ sales_channel_slug: slug, widget_key: widgetKey, client_id: 'channel-server' }),
        });
        const bearer = ((await tokenRes.json()) as { data: { access_token: string } }).data.access_token;
        const confirm = await fetch(`${api}/${slug}/es/orders/${encodeURIComponent(form.get('order_token') ?? '')}/confirm`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
          body: JSON.stringify({
            amount: Number(form.get('amount')),
            name: 'Pablo',
            surname: 'Ruiz',
            email: form.get('email') || 'pablo@example.com',
            transaction_id: 'shop-b-1',
            payment_method: 'card',
          }),
        });
        const body = (await confirm.json()) as { data?: { ticket_pdf_urls?: string[] } };
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end(page(`<h1 id="result">${confirm.ok ? 'Pago confirmado' : `Error ${confirm.status}`}</h1><p>${body.data?.ticket_pdf_urls?.length ?? 0} entradas</p>`));
        return;
      }
      res.statusCode = 404;
      res.end('not found');
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

import type { FastifyInstance, FastifyReply } from 'fastify';
import { findChannelById } from '../../channels/channels.service.js';
import { findOrderById, findPayment, type PaymentRow } from '../portal.repo.js';
import { portalPageUrl } from '../payments/payments.service.js';
import { newSandboxNotification, SANDBOX_CARDS, SANDBOX_SIGNATURE_HEADER, signSandboxNotification } from '../payments/sandbox.provider.js';
import { cspNonce } from '../../../http/security-headers.js';
import { esc, layout, money } from './html.js';
import { texts } from './i18n.js';

interface CardForm {
  card_number?: string;
  expiry?: string;
  cvc?: string;
  holder?: string;
}

/**
 * The sandbox provider's card page (D27): stands in for a real provider's hosted payment page.
 * It never sees real cards: only the two test numbers mean anything, and nothing is charged.
 */
export function registerSandboxPages(app: FastifyInstance): void {
  const enabled = () => app.ctx.config.portal.paymentProvider === 'sandbox';

  async function render(reply: FastifyReply, payment: PaymentRow | null, status = 200, error?: string) {
    if (!enabled() || !payment) return reply.status(404).type('text/html').send(layout({ nonce: cspNonce(reply).style, lang: 'en', title: 'Not found', channel: null, body: '<h1>Not found</h1>' }));
    const t = texts(payment.lang);
    const channel = await findChannelById(app.ctx, payment.channelId);
    const pending = payment.status === 'pending';
    const form = pending
      ? `<form method="post" class="card-form" novalidate>
  ${error ? `<p class="alert error" role="alert" id="card-error">${esc(error)}</p>` : ''}
  <label for="card_number">${esc(t.cardNumber)}</label>
  <input id="card_number" name="card_number" inputmode="numeric" autocomplete="cc-number" required placeholder="4242 4242 4242 4242"${error ? ' aria-invalid="true" aria-describedby="card-error"' : ''}>
  <div class="two">
    <div><label for="expiry">${esc(t.cardExpiry)}</label><input id="expiry" name="expiry" autocomplete="cc-exp" placeholder="12/34" required></div>
    <div><label for="cvc">${esc(t.cardCvc)}</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123" required></div>
  </div>
  <label for="holder">${esc(t.cardHolder)}</label>
  <input id="holder" name="holder" autocomplete="cc-name">
  <button type="submit" class="primary">${esc(t.pay)} · ${esc(money(payment.amount, payment.currency, payment.lang))}</button>
</form>`
      : `<p class="alert">${esc(t.paymentClosed)}</p>`;
    const body = `<section class="panel sandbox" aria-labelledby="sandbox-title">
<h1 id="sandbox-title">${esc(t.sandboxTitle)}</h1>
<p class="note">${esc(t.sandboxIntro)}</p>
<dl class="facts"><dt>${esc(t.merchant)}</dt><dd>${esc(channel?.name ?? '')}</dd><dt>${esc(t.amount)}</dt><dd>${esc(money(payment.amount, payment.currency, payment.lang))}</dd></dl>
${form}
</section>`;
    return reply.status(status).type('text/html').send(layout({ nonce: cspNonce(reply).style, lang: payment.lang, title: t.sandboxTitle, channel: null, body }));
  }

  app.get<{ Params: { paymentId: string } }>('/sandbox/pay/:paymentId', { schema: { hide: true } }, async (request, reply) => {
    return render(reply, enabled() ? await findPayment(app.ctx.db, request.params.paymentId) : null);
  });

  app.post<{ Params: { paymentId: string }; Body: CardForm }>('/sandbox/pay/:paymentId', { schema: { hide: true } }, async (request, reply) => {
    const payment = enabled() ? await findPayment(app.ctx.db, request.params.paymentId) : null;
    if (!payment || payment.status !== 'pending') return render(reply, payment, payment ? 409 : 404);
    const card = String(request.body?.card_number ?? '').replace(/[\s-]/g, '');
    const outcome = card === SANDBOX_CARDS.success ? 'succeeded' : card === SANDBOX_CARDS.decline ? 'declined' : null;
    if (!outcome) return render(reply, payment, 422, texts(payment.lang).unknownCard);

    // Post the signed notification back to the notification endpoint, as a real provider would.
    const now = app.ctx.clock.now();
    const body = JSON.stringify(newSandboxNotification(payment.id, outcome, payment.amount, payment.currency, card, now));
    const delivered = await app.inject({
      method: 'POST',
      url: '/api/portal/payments/sandbox/notifications',
      headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(app.ctx.config, body, now) },
      payload: body,
    });
    if (delivered.statusCode !== 200) request.log.error({ status: delivered.statusCode }, 'sandbox notification was not accepted');

    const order = await findOrderById(app.ctx.db, payment.orderId);
    const channel = order && (await findChannelById(app.ctx, order.channelId));
    if (!order || !channel) return render(reply, null);
    const token = encodeURIComponent(order.orderToken);
    const next =
      outcome === 'succeeded'
        ? portalPageUrl(app.ctx, channel.slug, payment.lang, `/orders/${token}?payment_id=${payment.id}`)
        : portalPageUrl(app.ctx, channel.slug, payment.lang, `/checkout?order_token=${token}&payment=declined`);
    return reply.redirect(next, 303);
  });
}

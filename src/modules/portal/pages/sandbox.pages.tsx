import type { FastifyInstance, FastifyReply } from 'fastify';
import { cspNonce } from '../../../http/security-headers.js';
import { formatMoney } from '../../../platform/i18n.js';
import type { ChannelRecord } from '../../../db/channel-record.js';
import { portalPageUrl } from '../payments/payments.service.js';
import { newSandboxNotification, SANDBOX_CARDS, SANDBOX_SIGNATURE_HEADER, signSandboxNotification } from '../payments/sandbox.provider.js';
import type { SandboxRefund } from '../payments/sandbox.repo.js';
import { orderOfPayment, sandboxPayment, type PaymentRow } from '../storefront.service.js';
import { renderPage } from './portal.layout.js';
import { texts } from './portal.texts.js';

interface CardForm {
  card_number?: string;
  expiry?: string;
  cvc?: string;
  holder?: string;
}

function SandboxCard({
  payment,
  channel,
  refunds,
  error,
}: {
  payment: PaymentRow;
  channel: ChannelRecord | null;
  refunds: SandboxRefund[];
  error: string | undefined;
}) {
  const t = texts(payment.lang);
  const amount = formatMoney(payment.amount, payment.currency, payment.lang);
  return (
    <section class="panel sandbox" aria-labelledby="sandbox-title">
      <h1 id="sandbox-title">{t.sandboxTitle}</h1>
      <p class="note">{t.sandboxIntro}</p>
      <dl class="facts">
        <dt>{t.merchant}</dt>
        <dd>{channel?.name ?? ''}</dd>
        <dt>{t.amount}</dt>
        <dd>{amount}</dd>
      </dl>
      {payment.status === 'pending' ? (
        <form method="post" class="card-form" novalidate>
          {error ? (
            <p class="alert error" role="alert" id="card-error">
              {error}
            </p>
          ) : null}
          <label for="card_number">{t.cardNumber}</label>
          <input
            id="card_number"
            name="card_number"
            inputmode="numeric"
            autocomplete="cc-number"
            required
            placeholder="4242 4242 4242 4242"
            {...(error ? { 'aria-invalid': 'true', 'aria-describedby': 'card-error' } : {})}
          />
          <div class="two">
            <div>
              <label for="expiry">{t.cardExpiry}</label>
              <input id="expiry" name="expiry" autocomplete="cc-exp" placeholder="12/34" required />
            </div>
            <div>
              <label for="cvc">{t.cardCvc}</label>
              <input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123" required />
            </div>
          </div>
          <label for="holder">{t.cardHolder}</label>
          <input id="holder" name="holder" autocomplete="cc-name" />
          <button type="submit" class="primary">{`${t.pay} · ${amount}`}</button>
        </form>
      ) : (
        <p class="alert">{t.paymentClosed}</p>
      )}
      {refunds.length > 0 ? (
        <section class="sandbox-refunds" aria-labelledby="sandbox-refunds">
          <h2 id="sandbox-refunds">{t.sandboxRefunds}</h2>
          <ul>
            {refunds.map((r) => (
              <li key={r.id}>
                <code>{r.id}</code> · {formatMoney(-r.amount, r.currency, payment.lang)} · {r.reason}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </section>
  );
}

/**
 * The sandbox provider's card page (D27): stands in for a real provider's hosted payment page.
 * It never sees real cards: only the two test numbers mean anything, and nothing is charged.
 */
export function registerSandboxPages(app: FastifyInstance): void {
  const { ctx } = app;
  const enabled = () => ctx.config.portal.paymentProvider === 'sandbox';
  const paymentOf = async (id: string) => (enabled() ? await sandboxPayment(ctx, id) : null);

  function render(reply: FastifyReply, found: Awaited<ReturnType<typeof sandboxPayment>>, status = 200, error?: string) {
    const nonce = cspNonce(reply).style;
    if (!found) return reply.status(404).type('text/html').send(renderPage({ nonce, lang: 'en', title: 'Not found', channel: null }, <h1>Not found</h1>));
    const { payment, channel, refunds } = found;
    const page = renderPage(
      { nonce, lang: payment.lang, title: texts(payment.lang).sandboxTitle, channel: null },
      <SandboxCard payment={payment} channel={channel} refunds={refunds} error={error} />,
    );
    return reply.status(status).type('text/html').send(page);
  }

  app.get<{ Params: { paymentId: string } }>('/sandbox/pay/:paymentId', { schema: { hide: true } }, async (request, reply) => {
    return render(reply, await paymentOf(request.params.paymentId));
  });

  app.post<{ Params: { paymentId: string }; Body: CardForm }>('/sandbox/pay/:paymentId', { schema: { hide: true } }, async (request, reply) => {
    const found = await paymentOf(request.params.paymentId);
    if (!found || found.payment.status !== 'pending') return render(reply, found, found ? 409 : 404);
    const { payment } = found;
    const card = String(request.body?.card_number ?? '').replace(/[\s-]/g, '');
    const outcome = card === SANDBOX_CARDS.success ? 'succeeded' : card === SANDBOX_CARDS.decline ? 'declined' : null;
    if (!outcome) return render(reply, found, 422, texts(payment.lang).unknownCard);

    // Post the signed notification back to the notification endpoint, as a real provider would.
    const now = ctx.clock.now();
    const body = JSON.stringify(newSandboxNotification(payment.id, outcome, payment.amount, payment.currency, card, now));
    const delivered = await app.inject({
      method: 'POST',
      url: '/api/portal/payments/sandbox/notifications',
      headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signSandboxNotification(ctx.config, body, now) },
      payload: body,
    });
    if (delivered.statusCode !== 200) request.log.error({ status: delivered.statusCode }, 'sandbox notification was not accepted');

    const paid = await orderOfPayment(ctx, payment);
    if (!paid) return render(reply, null);
    const token = encodeURIComponent(paid.order.orderToken);
    const next =
      outcome === 'succeeded'
        ? portalPageUrl(ctx, paid.channel.slug, payment.lang, `/orders/${token}?payment_id=${payment.id}`)
        : portalPageUrl(ctx, paid.channel.slug, payment.lang, `/checkout?order_token=${token}&payment=declined`);
    return reply.redirect(next, 303);
  });
}

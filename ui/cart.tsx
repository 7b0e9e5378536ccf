// The buyer's cart as Preact components of the UI kit (issue 26): the portal renders them on the
// server (the page's first cart, src/modules/portal/pages/portal.views.tsx) and its script hydrates
// and re-renders the same components as the cart changes (portal/src/main.js): one markup, no
// `innerHTML` strings. Amounts are in currency units, as the portal API and the widget's API give them.

/** One line of the cart: a seat ("Platea · Fila 1 · Asiento 4") or places in an unnumbered zone. */
export interface CartLine {
  id: number;
  event: string;
  where: string;
  rate: string;
  amount: number;
}

export interface CartTotals {
  currency: string;
  base_amount: number;
  discount_amount: number;
  fee_amount: number;
  total_amount: number;
  vouchers: { code: string }[];
}

/** The words the cart shows; each screen passes its own table (they share ui/texts.ts where they agree). */
export interface CartWords {
  emptyCart: string;
  remove: string;
  voucher: string;
  subtotal: string;
  discount: string;
  fees: string;
  total: string;
}

/**
 * The cart's lines, vouchers and totals, or the empty cart's sentence. With `editable`, each line and
 * voucher has a "Remove" button carrying `data-remove` (the item's id) or `data-voucher` (the code):
 * the page's script listens for them on the document, so the markup works the same whether the
 * server or the browser drew it.
 */
export function CartLines({ lines, totals, editable, t, money }: { lines: CartLine[]; totals: CartTotals | null; editable: boolean; t: CartWords; money: (amount: number) => string }) {
  if (lines.length === 0 || !totals) return <p>{t.emptyCart}</p>;
  return (
    <>
      <ul>
        {lines.map((l) => (
          <li class="item" key={`i${l.id}`}>
            <span>
              <strong>{l.event}</strong>
              <br />
              {l.where}
              <br />
              <span class="meta">{`${l.rate} · ${money(l.amount)}`}</span>
            </span>
            {editable ? (
              <button type="button" data-remove={l.id} aria-label={`${t.remove}: ${l.where}`}>
                {t.remove}
              </button>
            ) : null}
          </li>
        ))}
        {totals.vouchers.map((v) => (
          <li class="item" key={`v${v.code}`}>
            <span>
              {`${t.voucher}: `}
              <strong>{v.code}</strong>
            </span>
            {editable ? (
              <button type="button" data-voucher={v.code} aria-label={`${t.remove}: ${v.code}`}>
                {t.remove}
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      <dl class="totals">
        <dt>{t.subtotal}</dt>
        <dd>{money(totals.base_amount)}</dd>
        {totals.discount_amount ? (
          <>
            <dt>{t.discount}</dt>
            <dd>{money(totals.discount_amount)}</dd>
          </>
        ) : null}
        <dt>{t.fees}</dt>
        <dd>{money(totals.fee_amount)}</dd>
        <dt class="grand">{t.total}</dt>
        <dd class="grand" id="cart-total">
          {money(totals.total_amount)}
        </dd>
      </dl>
    </>
  );
}

/** The cart's way on: the checkout link, when the page offers one and the cart has something in it. */
export function CartActions({ href, label }: { href: string | null; label: string }) {
  return href ? (
    <a class="button primary" id="checkout-link" href={href}>
      {label}
    </a>
  ) : null;
}

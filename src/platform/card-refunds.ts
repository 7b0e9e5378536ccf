import { appSingleton, type AppContext } from '../app-context.js';
import type { Db } from '../db/client.js';

/**
 * The card refund of an order refund (D58), as the order refund (module checkout) needs it: the
 * card payments live in the portal module, which itself depends on checkout's closing process, so
 * checkout cannot import it. The composition roots (src/app.ts, src/cli/context.ts) plug the
 * portal's implementation in here; without it an order paid by card cannot be refunded.
 */
export type OrderCardRefunder = (
  ctx: AppContext,
  input: { orderId: number; amount: number; reason: string; key: string },
  tx: Db,
) => Promise<{ paymentId: string; provider: string; refundRef: string } | null>;

const slot = appSingleton('payments.order-card-refunder', () => ({ refunder: null as OrderCardRefunder | null }));

export function plugOrderCardRefunder(ctx: AppContext, refunder: OrderCardRefunder): void {
  slot(ctx).refunder = refunder;
}

/** The plugged card refunder, or null (a context built without the portal). */
export function orderCardRefunder(ctx: AppContext): OrderCardRefunder | null {
  return slot(ctx).refunder;
}

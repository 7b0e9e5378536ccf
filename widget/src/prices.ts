/**
 * All-in prices (D71): every price the widget shows a buyer includes the mandatory fees. The fees
 * are the event's fee rules (`GET .../events/{eventId}`, `fees`) of the whole event or of this
 * session, computed as the service holds an item (ticket_fee / fee_of_rule): a fixed fee in
 * currency units per ticket, or a percentage of the rate's price rounded to the cent.
 */

export interface FeeRule {
  kind: string;
  /** fixed: currency units per ticket; percent: 5 = 5 %. */
  amount: number;
  session_id: number | null;
}

/** The fee rules that apply to tickets of this session. */
export const feesOfSession = (fees: FeeRule[] | undefined, sessionId: number): FeeRule[] =>
  (fees ?? []).filter((f) => f.session_id === null || f.session_id === undefined || Number(f.session_id) === sessionId);

/** The mandatory fees of one ticket at `price` (currency units), in currency units. */
export function feeOf(price: number, fees: FeeRule[]): number {
  const minor = Math.round(price * 100);
  let total = 0;
  for (const f of fees) {
    if (f.kind === 'fixed') total += Math.round(f.amount * 100);
    else total += Math.sign(minor) * Math.round((Math.abs(minor) * Math.round(f.amount * 100)) / 10000);
  }
  return total / 100;
}

/** The price the buyer pays for one ticket: the rate's price plus its fees. */
export const allIn = (price: number, fees: FeeRule[]) => Math.round((price + feeOf(price, fees)) * 100) / 100;

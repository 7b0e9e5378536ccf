import type { AppContext } from '../../../app-context.js';
import { AppError } from '../../../http/errors.js';
import type { ChannelRecord } from '../../channels/channels.repo.js';
import type { PaymentRow } from '../portal.repo.js';

export type CloseOutcome = 'completed' | 'seats_unavailable';

/**
 * Runs the one closing process (the same as confirm) for an order the card provider has paid.
 * An expired order whose seats are still free is completed; one whose seats are gone is not.
 */
export async function closePaidOrder(
  _ctx: AppContext,
  _channel: ChannelRecord,
  _orderId: number,
  _payment: PaymentRow,
): Promise<CloseOutcome> {
  throw new AppError('service_unavailable', 'The closing process is not available yet');
}

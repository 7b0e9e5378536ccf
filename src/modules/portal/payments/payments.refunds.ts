// PLACEHOLDER until branch `refunds` ("Provider refunds:") is merged: that branch owns this file
// (money-api.md) and its version replaces this one entirely at the merge.
import type { AppContext } from '../../../app-context.js';
import { AppError } from '../../../http/errors.js';

export async function refundPayment(
  _ctx: AppContext,
  _input: { paymentId: string; amount: number; reason: string; key: string },
): Promise<{ refundRef: string; alreadyDone: boolean }> {
  throw new AppError('service_unavailable', 'Provider refunds are not available in this build');
}

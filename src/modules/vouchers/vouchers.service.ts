import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/errors.js';
import type { ChannelRecord } from '../../db/channel-record.js';
import type { OrderView } from '../orders/orders.view.js';
import { changeCart, orderItems, repriceOrder } from '../orders/orders.service.js';
import { inVoucherScope } from '../orders/orders.pricing.js';
import * as repo from './vouchers.repo.js';

// Vouchers on carts. One voucher per order: applying another code replaces the current one
// (docs/cart.md). Codes are case-insensitive (stored upper case by the catalogue import).

/** The stored form of a code as a buyer types it. */
const normaliseCode = (code: string) => code.trim().toUpperCase();

/**
 * Applies a voucher of the channel's organiser to a live cart: checks the validity window, the
 * scope (at least one item must qualify) and the use limit (counted under a lock on the voucher).
 */
export const applyVoucher = (ctx: AppContext, channel: ChannelRecord, orderToken: string, lang: string, rawCode: string): Promise<OrderView> =>
  changeCart(ctx, channel, orderToken, lang, async (tx, order, now) => {
    const code = normaliseCode(rawCode);
    const voucher = await repo.lockVoucher(tx, channel.organiserId, code);
    // A voucher its organiser disabled (D75) is as unknown to a buyer as one that never existed.
    if (!voucher || !voucher.active) throw new AppError('voucher_invalid', { code }, { code: ['unknown voucher code'] });
    const current = await repo.orderVoucherCodes(tx, order.id);
    if (current.some((v) => v.voucherId === voucher.id)) return []; // already applied: nothing to do
    if (voucher.validFrom && voucher.validFrom > now) {
      throw new AppError('voucher_not_yet_valid', { code }, { code: ['not valid yet'] });
    }
    if (voucher.validUntil && voucher.validUntil <= now) {
      throw new AppError('voucher_expired', { code }, { code: ['expired'] });
    }
    const items = await orderItems(tx, order.id);
    const inScope = items.some((item) => inVoucherScope({ eventId: item.eventId, sessionId: item.sessionId, rateId: item.rateId }, voucher));
    if (!inScope) {
      throw new AppError('voucher_not_applicable', { code }, {
        code: ['no item of the order is in the voucher scope'],
      });
    }
    if (voucher.maxUses !== null && (await repo.countUses(tx, voucher.id, order.id, now)) >= voucher.maxUses) {
      throw new AppError('voucher_exhausted', { code });
    }
    await repo.replaceOrderVoucher(tx, order.id, voucher.id, voucher.code, now);
    await repriceOrder(tx, order.id, now);
    return [];
  });

/** Removes a voucher from a live cart; 404 when that code is not applied to it. */
export const removeVoucher = (ctx: AppContext, channel: ChannelRecord, orderToken: string, lang: string, rawCode: string): Promise<OrderView> =>
  changeCart(ctx, channel, orderToken, lang, async (tx, order, now) => {
    const code = normaliseCode(rawCode);
    const applied = (await repo.orderVoucherCodes(tx, order.id)).find((v) => v.code === code);
    if (!applied) throw new AppError('not_found.voucher_not_applied', { code });
    await repo.removeOrderVoucher(tx, order.id, applied.voucherId);
    await repriceOrder(tx, order.id, now);
    return [];
  }, { keepVoucher: true });

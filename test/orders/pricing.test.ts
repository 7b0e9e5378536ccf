import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { priceItems, splitLargestRemainder, sumAmounts, type FeeRule, type PricingItem, type VoucherRule } from '../../src/modules/orders/orders.pricing.js';

const item = (id: number, price: number, over: Partial<PricingItem> = {}): PricingItem => ({ id, eventId: 1, sessionId: 10, rateId: 100, price, ...over });
const noScope = { eventId: null, sessionId: null, rateId: null };

describe('pricing', () => {
  it('fees: fixed per ticket plus percent of the base, from the event and the session', () => {
    const fees: FeeRule[] = [
      { eventId: 1, sessionId: null, kind: 'fixed', amount: 150 },
      { eventId: null, sessionId: 10, kind: 'percent', amount: 500 },
      { eventId: 2, sessionId: null, kind: 'fixed', amount: 999 },
    ];
    expect(priceItems([item(1, 2250)], fees, null)).toEqual([{ id: 1, base: 2250, discount: 0, fee: 150 + 113, total: 2250 + 263 }]);
  });

  it('percent voucher: each in-scope item, never below zero', () => {
    const v: VoucherRule = { kind: 'percent', value: 1000, ...noScope, rateId: 100 };
    const out = priceItems([item(1, 3000), item(2, 2250, { rateId: 101 })], [], v);
    expect(out.map((i) => i.discount)).toEqual([-300, 0]);
    const all: VoucherRule = { kind: 'percent', value: 15_000, ...noScope };
    expect(priceItems([item(1, 999)], [], all)[0]!.discount).toBe(-999);
  });

  it('fixed voucher: once per order, split by largest remainder over in-scope bases', () => {
    const v: VoucherRule = { kind: 'fixed', value: 500, ...noScope };
    expect(priceItems([item(1, 3000), item(2, 2250)], [], v).map((i) => i.discount)).toEqual([-286, -214]);
    expect(splitLargestRemainder(100, [1, 1, 1])).toEqual([34, 33, 33]);
    expect(splitLargestRemainder(10, [0, 0])).toEqual([0, 0]);
  });

  it('property: totals are consistent, discounts within [-base, 0], a fixed voucher takes min(value, in-scope base)', () => {
    const arbItem = fc.record({ price: fc.integer({ min: 0, max: 100_000 }), eventId: fc.integer({ min: 1, max: 2 }), rateId: fc.integer({ min: 1, max: 3 }) });
    const arbVoucher = fc.option(
      fc.record({
        kind: fc.constantFrom<'percent' | 'fixed'>('percent', 'fixed'),
        value: fc.integer({ min: 1, max: 20_000 }),
        eventId: fc.option(fc.integer({ min: 1, max: 2 })),
        sessionId: fc.constant(null),
        rateId: fc.option(fc.integer({ min: 1, max: 3 })),
      }),
    );
    const arbFees = fc.array(
      fc.record({ eventId: fc.integer({ min: 1, max: 2 }), sessionId: fc.constant(null), kind: fc.constantFrom<'fixed' | 'percent'>('fixed', 'percent'), amount: fc.integer({ min: 0, max: 2000 }) }),
      { maxLength: 3 },
    );
    fc.assert(
      fc.property(fc.array(arbItem, { maxLength: 20 }), arbFees, arbVoucher, (raw, fees, voucher) => {
        const items = raw.map((r, i) => item(i + 1, r.price, { eventId: r.eventId, rateId: r.rateId, sessionId: 10 }));
        const out = priceItems(items, fees, voucher);
        for (const [i, a] of out.entries()) {
          expect(a.total).toBe(a.base + a.discount + a.fee);
          expect(a.discount).toBeLessThanOrEqual(0);
          expect(-a.discount).toBeLessThanOrEqual(items[i]!.price);
        }
        const sum = sumAmounts(out);
        expect(sum.total).toBe(sum.base + sum.discount + sum.fee);
        if (voucher?.kind === 'fixed') {
          const scoped = items.filter((it) => (voucher.eventId === null || voucher.eventId === it.eventId) && (voucher.rateId === null || voucher.rateId === it.rateId));
          expect(Math.abs(sum.discount)).toBe(Math.min(voucher.value, scoped.reduce((a, b) => a + b.price, 0)));
        }
      }),
    );
  });
});

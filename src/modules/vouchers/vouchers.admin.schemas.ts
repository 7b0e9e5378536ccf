import { Type } from '@fastify/type-provider-typebox';
import { Amount as AmountOf, IdParam as Id, Int32, Nullable, Text, Timestamp } from '../../http/schemas.js';

// TypeBox schemas of the vouchers part of the admin API (/api/admin/v1/vouchers).

export const VoucherCreate = Type.Object(
  {
    organiser_id: Type.Optional(Id),
    code: Text(64, { pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    kind: Type.Union([Type.Literal('percent'), Type.Literal('fixed')]),
    value: AmountOf({ exclusiveMinimum: 0, description: 'percent: percentage off; fixed: amount off the order' }),
    valid_from: Type.Optional(Nullable(Timestamp)),
    valid_until: Type.Optional(Nullable(Timestamp)),
    max_uses: Type.Optional(Nullable(Int32({ minimum: 1, maximum: 1_000_000 }))),
    event_id: Type.Optional(Nullable(Id)),
    session_id: Type.Optional(Nullable(Id)),
    rate_id: Type.Optional(Nullable(Id)),
    active: Type.Optional(Type.Boolean({ description: 'false disables the voucher: it cannot be applied, and live carts lose it at their next change or confirm (D75)' })),
  },
  { additionalProperties: false },
);
export const VoucherUpdate = Type.Partial(Type.Omit(VoucherCreate, ['organiser_id']), { additionalProperties: false, minProperties: 1 });
export const Voucher = Type.Object({
  id: Type.Integer(),
  organiser_id: Type.Integer(),
  code: Type.String(),
  kind: Type.String(),
  value: Type.Number(),
  valid_from: Nullable(Timestamp),
  valid_until: Nullable(Timestamp),
  max_uses: Nullable(Type.Integer()),
  event_id: Nullable(Type.Integer()),
  session_id: Nullable(Type.Integer()),
  rate_id: Nullable(Type.Integer()),
  active: Type.Boolean(),
  created_at: Timestamp,
});

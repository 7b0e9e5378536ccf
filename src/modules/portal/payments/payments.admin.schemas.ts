import { Type } from '@fastify/type-provider-typebox';
import { pageQuery } from '../../../http/admin-api.js';
import { IdParam as Id, Nullable, Text, Timestamp } from '../../../http/schemas.js';

// TypeBox schemas of the payments part of the admin API (/api/admin/v1/payments).

/** D73: card payments, e.g. `?status=refund_required` (money taken that completed no order, until refunded). */
export const PaymentsQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Union(['pending', 'succeeded', 'declined', 'cancelled', 'refund_required', 'refunded'].map((s) => Type.Literal(s)), {
        description: 'Only payments in this status',
      }),
    ),
    channel_id: Type.Optional(Id),
    before: Type.Optional(Text(80, { description: 'Keyset pagination: payments created before this payment id' })),
    limit: pageQuery.limit,
  },
  { additionalProperties: false },
);
export const PaymentRow = Type.Object({
  id: Type.String(),
  order_id: Type.Integer(),
  order_reference: Type.String(),
  channel_id: Type.Integer(),
  sales_channel_slug: Type.String(),
  provider: Type.String(),
  provider_ref: Nullable(Type.String()),
  status: Type.String(),
  amount: Type.Number(),
  currency: Type.String(),
  buyer_name: Type.String(),
  buyer_email: Type.String(),
  failure_reason: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
  closed_at: Nullable(Timestamp),
  refund_attempts: Type.Integer(),
  refund_next_at: Nullable(Timestamp),
  refund_error: Nullable(Type.String()),
  refunded_at: Nullable(Timestamp),
  refund_ref: Nullable(Type.String()),
});

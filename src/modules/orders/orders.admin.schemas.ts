import { Type } from '@fastify/type-provider-typebox';
import { pageQuery } from '../../http/admin-api.js';
import { IdParam as Id, Nullable, Text, Timestamp } from '../../http/schemas.js';

// TypeBox schemas of the orders part of the admin API (/api/admin/v1): the order lists and one order.

export const OrdersQuery = Type.Object(
  {
    channel_id: Type.Optional(Id),
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('cancelled'), Type.Literal('expired')])),
    type: Type.Optional(Type.Union([Type.Literal('purchase'), Type.Literal('refund'), Type.Literal('reservation')])),
    search: Type.Optional(Text(200, { description: "The order reference, or part of the buyer's e-mail or name (case-insensitive)" })),
    ...pageQuery,
  },
  { additionalProperties: false },
);
/** The fields that name an order, first in its row of the list and in its detail. */
const orderHead = {
  id: Type.Integer(),
  reference: Type.String(),
  channel_id: Type.Integer(),
  sales_channel_slug: Type.String(),
  type: Type.String(),
  status: Type.String(),
};
export const OrderRow = Type.Object({
  ...orderHead,
  total_amount: Type.Number(),
  currency: Type.String(),
  created_at: Timestamp,
  buyer_name: Nullable(Type.String()),
  buyer_email: Nullable(Type.String()),
});
export const OrderDetail = Type.Object({
  ...orderHead,
  lang: Type.String(),
  total_amount: Type.Number(),
  currency: Type.String(),
  payment_method: Nullable(Type.String()),
  created_at: Timestamp,
  completed_at: Nullable(Timestamp),
  refund_reference: Nullable(Type.String()),
  buyer: Nullable(Type.Object({ name: Type.String(), surname: Type.String(), email: Type.String(), phone: Nullable(Type.String()) })),
  items: Type.Array(
    Type.Object({
      event_name: Type.String(),
      session_start: Timestamp,
      venue_name: Type.String(),
      sector_name: Type.String(),
      row: Nullable(Type.String()),
      seat: Nullable(Type.String()),
      rate_name: Type.String(),
      total_amount: Type.Number(),
      ticket_code: Nullable(Type.String()),
      ticket_status: Nullable(Type.String()),
      ticket_id: Nullable(Type.Integer()),
      fee_amount: Type.Number(),
      refund_reference: Nullable(Type.String({ description: 'The refund that covered this item (D58)' })),
    }),
  ),
  payments: Type.Array(
    Type.Object({
      id: Type.String(),
      provider: Type.String(),
      status: Type.String(),
      amount: Type.Number(),
      currency: Type.String(),
      failure_reason: Nullable(Type.String()),
      created_at: Timestamp,
    }),
  ),
  history: Type.Array(
    Type.Object({ action: Type.String(), user_email: Type.String(), target_id: Type.String(), details: Type.Record(Type.String(), Type.Unknown()), created_at: Timestamp }),
  ),
  refunds: Type.Array(
    Type.Object({
      reference: Type.String(),
      created_at: Timestamp,
      reason: Type.String(),
      actor: Type.String(),
      total_amount: Type.Number({ description: 'Negative: what this refund gave back' }),
      fee_amount: Type.Number(),
      fees_refunded: Type.Boolean(),
      ticket_ids: Type.Array(Type.Integer()),
      provider: Nullable(Type.String({ description: 'The card provider that refunded (sandbox, stripe); null when no card payment of this service paid the order' })),
      provider_refund_reference: Nullable(Type.String({ description: "The card provider's refund reference" })),
    }),
    { description: 'Refunds of the order (D58), oldest first' },
  ),
});

import { Type } from '@fastify/type-provider-typebox';
import { Lang } from '../../http/admin-api.js';
import { EmailAddress, IdParam as Id, Nullable } from '../../http/schemas.js';

// TypeBox schemas of the admin API's order actions (/api/admin/v1): refunds, reservations and the
// ticket e-mail sent again.

export const TicketResend = Type.Object({
  reference: Type.String(),
  recipient: Type.String(),
  email_id: Type.Integer({ description: 'The queued e-mail; the e-mail queue sends it within seconds' }),
  resends: Type.Integer({ description: 'How often this order\'s ticket e-mail has been resent, this time included' }),
});

/** The reason recorded for an admin API refund that gives none (D58 asks only for the tickets). */
export const API_REFUND_REASON = 'Refunded through the admin API';
export const RefundCreate = Type.Object(
  {
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, pattern: '\\S', description: `Kept with the refund and in the audit log; "${API_REFUND_REASON}" when absent` })),
    ticket_ids: Type.Optional(
      Type.Array(Id, { minItems: 1, maxItems: 500, description: 'Refund only these tickets of the order (D58); every ticket not refunded yet when absent' }),
    ),
    allow_used: Type.Optional(Type.Boolean({ description: 'Refund checked-in tickets too; without it a checked-in ticket is 409 ticket_used' })),
  },
  { additionalProperties: false },
);
export const Refund = Type.Object({
  refund_order_id: Type.Integer(),
  refund_reference: Type.String(),
  refunded_order_reference: Type.String(),
  total_amount: Type.Number({ description: 'Negative: the amount given back' }),
  fee_amount: Type.Number({ description: 'Negative: the fees given back; 0 when the organiser keeps them (refund_fees false)' }),
  fees_refunded: Type.Boolean(),
  released_seats: Type.Integer(),
  voided_tickets: Type.Integer(),
  ticket_ids: Type.Array(Type.Integer(), { description: 'The tickets this refund covered' }),
  card_refund: Nullable(
    Type.Object({
      provider: Type.String(),
      payment_id: Type.String(),
      reference: Type.String({ description: "The card provider's refund reference (Stripe re_..., sandbox re_sbx_...)" }),
      amount: Type.Number({ description: 'Positive: what went back to the card' }),
    }),
  ),
  email_queued: Type.Boolean({ description: "Whether the buyer's refund e-mail was queued (models A, B and C)" }),
});
export const ReservationCreate = Type.Object(
  {
    items: Type.Array(Type.Object({ session_seat_id: Id, rate_id: Id }, { additionalProperties: false }), { minItems: 1, maxItems: 100 }),
    buyer: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 200 }),
        surname: Type.String({ minLength: 1, maxLength: 200 }),
        email: EmailAddress("buyer's e-mail"),
        phone: Type.Optional(Type.String({ maxLength: 40 })),
      },
      { additionalProperties: false },
    ),
    lang: Type.Optional(Lang),
  },
  { additionalProperties: false },
);
export const Reservation = Type.Object({
  order_id: Type.Integer(),
  order_token: Type.String(),
  reference: Type.String(),
  total_amount: Type.Number(),
  ticket_pdf_urls: Type.Array(Type.String()),
});

import { Type, type Static } from '@fastify/type-provider-typebox';
import { Envelope, LangParam, SlugParam } from '../../http/schemas.js';

export const ConfirmParams = Type.Object({
  salesChannelSlug: SlugParam,
  lang: LangParam,
  orderToken: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
});

const optionalText = (description: string) => Type.Optional(Type.String({ maxLength: 255, description }));

/** Body of confirm (SPEC "Payment confirmation", D20). */
export const ConfirmBody = Type.Object({
  transaction_id: optionalText("the channel's payment reference"),
  amount: Type.Number({ minimum: 0, maximum: 10_000_000, description: 'declared amount; must equal the order total exactly (at most two decimals)' }),
  payment_method: optionalText('e.g. card, bizum, cash'),
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: "buyer's first name" }),
  surname: Type.String({ minLength: 1, maxLength: 150, pattern: '\\S' }),
  email: Type.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', description: "buyer's e-mail" }),
  phone: Type.Optional(Type.String({ maxLength: 40 })),
});
export type ConfirmBody = Static<typeof ConfirmBody>;

const Money = Type.Number();
const OrderItem = Type.Object({
  id: Type.Integer(),
  session_seat_id: Type.Integer(),
  sector_id: Type.Integer(),
  rate_id: Type.Integer(),
  base_amount: Money,
  discount_amount: Money,
  fee_amount: Money,
  total_amount: Money,
});

/** The completed order (D35 shape) plus the signed ticket links (SPEC "Confirm response"). */
export const ConfirmResponse = Envelope(
  Type.Object(
    {
      order_token: Type.String(),
      reference: Type.String({ description: 'readable order code (order_reference of the sales report)' }),
      status: Type.String(),
      total_amount: Money,
      expires_at: Type.Union([Type.String(), Type.Null()]),
      currency: Type.String(),
      events: Type.Array(
        Type.Object(
          {
            id: Type.Integer(),
            name: Type.String(),
            sessions: Type.Array(
              Type.Object(
                { id: Type.Integer(), start_datetime: Type.Union([Type.String(), Type.Null()]), items: Type.Array(OrderItem, { additionalProperties: true }) },
                { additionalProperties: true },
              ),
            ),
          },
          { additionalProperties: true },
        ),
      ),
      vouchers: Type.Array(Type.Any()),
      ticket_pdf_urls: Type.Array(Type.String(), { description: 'signed links to the ticket PDFs, one per item, valid 7 days' }),
    },
    { additionalProperties: true },
  ),
);

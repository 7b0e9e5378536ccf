import { Type, type Static } from '@fastify/type-provider-typebox';
import { Envelope } from '../../http/schemas.js';
import { EMAIL_MAX_LENGTH } from '../../lib/email-address.js';

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });

export const CheckoutBody = Type.Object(
  {
    order_token: Type.String({ minLength: 1, maxLength: 100 }),
    name: Type.Optional(Text(100)),
    surname: Type.Optional(Text(100)),
    email: Type.Optional(Text(EMAIL_MAX_LENGTH)),
    phone: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { additionalProperties: false },
);
export type CheckoutBody = Static<typeof CheckoutBody>;

export const CheckoutResponse = Envelope(
  Type.Object({
    integration_mode: Type.String(),
    /** Where to send the buyer: the provider's payment page (A, C) or the channel's checkout (B). */
    redirect_url: Type.String(),
    provider: Type.Optional(Type.String()),
    payment_id: Type.Optional(Type.String()),
    params: Type.Optional(Type.Record(Type.String(), Type.String())),
    amount: Type.Optional(Type.Number()),
    currency: Type.Optional(Type.String()),
    checkout_url: Type.Optional(Type.String()),
  }),
);

export const NotificationResponse = Envelope(
  Type.Object({ result: Type.String(), payment_id: Type.Union([Type.String(), Type.Null()]) }),
);

import { Type, type Static } from '@fastify/type-provider-typebox';
import { Amount, Envelope, LangParam, SlugParam, EmailAddress } from '../../http/schemas.js';
import { OrderSchema, OrderToken } from '../orders/orders.schemas.js';

export const ConfirmParams = Type.Object({ salesChannelSlug: SlugParam, lang: LangParam, orderToken: OrderToken });

const optionalText = (description: string) => Type.Optional(Type.String({ maxLength: 255, description }));

/** Body of confirm (SPEC "Payment confirmation", D20). */
export const ConfirmBody = Type.Object({
  transaction_id: optionalText("the channel's payment reference"),
  amount: Amount({ maximum: 10_000_000, description: 'declared amount; must equal the order total exactly (at most two decimals)' }),
  payment_method: optionalText('e.g. card, bizum, cash'),
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: "buyer's first name" }),
  surname: Type.String({ minLength: 1, maxLength: 150, pattern: '\\S' }),
  email: EmailAddress("buyer's e-mail"),
  phone: Type.Optional(Type.String({ maxLength: 40 })),
});
export type ConfirmBody = Static<typeof ConfirmBody>;

/** The completed order (D35) plus the signed ticket links (SPEC "Confirm response"). */
export const ConfirmResponse = Envelope(
  Type.Object({
    ...OrderSchema.properties,
    ticket_pdf_urls: Type.Array(Type.String(), { description: 'signed links to the ticket PDFs, one per item, valid 7 days' }),
    ticket_wallet_urls: Type.Array(
      Type.Object({
        item_id: Type.Integer({ description: 'the order item the ticket is for' }),
        apple: Type.Union([Type.String(), Type.Null()], { description: 'signed link to the ticket as an Apple Wallet pass (`.pkpass`, application/vnd.apple.pkpass), valid 7 days; null when the deployment does not offer Apple Wallet or the ticket is void' }),
        google: Type.Union([Type.String(), Type.Null()], { description: "signed link that redirects to Google Wallet's save page, valid 7 days; null when the deployment does not offer Google Wallet or the ticket is void" }),
      }),
      { description: '"Add to Apple Wallet" / "Add to Google Wallet" links (D70), one per item in item order, as the order page offers them; the widget shows them after notifyPaymentComplete' },
    ),
  }),
);

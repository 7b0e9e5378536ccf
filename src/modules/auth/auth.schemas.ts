import { Type } from '@fastify/type-provider-typebox';
import { Envelope } from '../../http/schemas.js';

/** Exactly one of widget_key and server_key (D39): checked by the service, with field messages. */
export const TokenRequest = Type.Object(
  {
    sales_channel_slug: Type.String({ minLength: 1, maxLength: 64 }),
    widget_key: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'the publishable widget key (`wk_`, at most 64 characters: SPEC, D7); give this or server_key, not both' }),
    ),
    server_key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "the channel's server key (`sk_`, at most 64 characters: D39), from the channel's server only; give this or widget_key, not both",
      }),
    ),
    client_id: Type.Optional(
      Type.String({
        maxLength: 64,
        pattern: '^[A-Za-z0-9_-]{1,64}$',
        description: 'One id per browser or client process (D38): a new token revokes only the previous token of the same client_id',
      }),
    ),
  },
  { additionalProperties: false },
);

export const TokenResponse = Envelope(
  Type.Object({
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    sales_channel_slug: Type.String(),
    expires_at: Type.String({ format: 'date-time' }),
    expires_in: Type.Integer({ description: 'seconds' }),
    scope: Type.Union([Type.Literal('widget'), Type.Literal('server')], {
      description: 'the kind of key the token was issued for: a widget token of models C and D cannot confirm nor read the report (D40)',
    }),
  }),
);

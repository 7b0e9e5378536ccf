import { Type } from '@fastify/type-provider-typebox';
import { Envelope } from '../../http/schemas.js';

export const TokenRequest = Type.Object(
  {
    sales_channel_slug: Type.String({ minLength: 1, maxLength: 64 }),
    widget_key: Type.String({ minLength: 1, maxLength: 256 }),
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
  }),
);

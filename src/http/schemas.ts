import { Type, type TSchema } from '@fastify/type-provider-typebox';

/** Path parameters shared by the B2B routes. */
export const SlugParam = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'sales_channel_slug' });
export const LangParam = Type.String({ pattern: '^[a-z]{2}(-[A-Za-z]{2})?$', description: 'language code, e.g. es or en' });
export const IdParam = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });

export const ChannelParams = Type.Object({ salesChannelSlug: SlugParam });
export const ChannelLangParams = Type.Object({ salesChannelSlug: SlugParam, lang: LangParam });

/** The success envelope of D33 around `data`. */
export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({
    status: Type.Integer(),
    success: Type.Boolean(),
    data,
    message: Type.String(),
  });

/** The error envelope of D4, for the OpenAPI output. */
export const ErrorEnvelope = Type.Object(
  {
    status: Type.Integer(),
    success: Type.Literal(false),
    message: Type.String(),
    code: Type.String(),
    errors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
  },
  { $id: 'ErrorEnvelope' },
);

/** Standard error responses for the OpenAPI document of a bearer-protected route. */
export const bearerErrors = {
  401: Type.Ref('ErrorEnvelope'),
  403: Type.Ref('ErrorEnvelope'),
  422: Type.Ref('ErrorEnvelope'),
};

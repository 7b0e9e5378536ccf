import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { ChannelParams, Envelope, bearerErrors } from '../../http/schemas.js';
import { channelConfig } from './channels.service.js';

const ConfigResponse = Envelope(
  Type.Object({
    sales_channel_slug: Type.String(),
    name: Type.String(),
    integration_mode: Type.String(),
    allows_widget: Type.Boolean(),
    checkout_url: Type.Union([Type.String(), Type.Null()]),
    portal_checkout_base_url: Type.Union([Type.String(), Type.Null()]),
    requires_external_payment_callback: Type.Boolean(),
    show_checkout_button: Type.Boolean(),
    widget_url: Type.String(),
    default_lang: Type.String(),
    languages: Type.Array(Type.String()),
    currency: Type.String(),
    timezone: Type.String({ description: "the deployment's IANA time zone (TIMEZONE), in which every date is shown" }),
    cart_ttl_seconds: Type.Integer(),
    branding: Type.Object({
      name: Type.String(),
      logo_url: Type.Union([Type.String(), Type.Null()]),
      primary_color: Type.String(),
      accent_color: Type.String(),
      font_family: Type.Union([Type.String(), Type.Null()]),
    }),
  }),
);

/** GET /sales-channel/v1/{slug}/config (bearer, D9). */
const channelRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/config',
    {
      config: { b2bOperation: 'config' },
      schema: {
        tags: ['Channel'],
        operationId: 'getChannelConfig',
        summary: 'Channel configuration (the widget reads it at start-up)',
        params: ChannelParams,
        response: { 200: ConfigResponse, ...bearerErrors },
      },
    },
    async (request) => ok(channelConfig(app.ctx, request.channel!), 'Channel configuration'),
  );
};

export default channelRoutes;

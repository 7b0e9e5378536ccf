import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { ChannelParams, Envelope, bearerErrors } from '../../http/schemas.js';
import { channelConfig, integrationChecklist } from './channels.service.js';

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

const ChecklistResponse = Envelope(
  Type.Object({
    model: Type.Union([Type.Literal('A'), Type.Literal('B'), Type.Literal('C'), Type.Literal('D')]),
    recording: Type.Boolean({ description: 'false in production: the checklist is filled on a pre-production deployment' }),
    ready_to_go_live: Type.Boolean({ description: 'every step of the channel\'s model is completed' }),
    steps: Type.Array(
      Type.Object({
        step: Type.String({ description: 'stable name of the step (docs/preproduction.md)' }),
        label: Type.String(),
        completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'first completion, null while open' }),
      }),
    ),
  }),
);

/** GET /sales-channel/v1/{slug}/config (bearer, D9) and the channel's pre-production checklist. */
const channelRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/config',
    {
      config: { b2bOperation: 'config', checklistStep: 'config_read' },
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

  app.get(
    '/integration-checklist',
    {
      // Every scope of every model may read its own checklist: it holds no buyer's data.
      config: { b2bOperation: 'config' },
      schema: {
        tags: ['Channel'],
        operationId: 'getIntegrationChecklist',
        summary: "The channel's pre-production integration checklist (steps completed by its own calls)",
        description:
          'Each step of the channel\'s model with the time its own calls first completed it, and whether all are done ' +
          '(ready to go live). Filled on pre-production deployments only; see docs/preproduction.md.',
        params: ChannelParams,
        response: { 200: ChecklistResponse, ...bearerErrors },
      },
    },
    async (request) => ok(await integrationChecklist(app.ctx, request.channel!), 'Integration checklist'),
  );
};

export default channelRoutes;

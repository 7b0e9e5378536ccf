import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { ConfirmBody, ConfirmParams, ConfirmResponse } from './checkout.schemas.js';
import { confirmOrder } from './checkout.service.js';

const errorRef = Type.Ref('ErrorEnvelope');

/**
 * POST /sales-channel/v1/{slug}/{lang}/orders/{orderToken}/confirm (models B and D), and the alias
 * /confirm-payment of SPEC's change history (D19). Registered inside the bearer-token scope.
 */
const checkoutRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const suffix of ['confirm', 'confirm-payment']) {
    app.post(
      `/:lang/orders/:orderToken/${suffix}`,
      {
        // Models B and D; in model D only with the server key (integration policy, D40). No rate
        // limit: the channel confirms a payment it collected; no seat is held and nothing can be
        // guessed. The checklist step (first or repeated) is the outcome's.
        config: { b2bOperation: 'confirm', rateLimits: { none: 'the channel confirms a payment it collected; no seat is held and nothing can be guessed' }, checklistStep: 'set_by_handler' },
        schema: {
          tags: ['Payment confirmation'],
          operationId: suffix === 'confirm' ? 'confirmOrder' : 'confirmOrderPayment',
          summary:
            suffix === 'confirm'
              ? 'Confirm an externally collected payment (models B and D); idempotent'
              : 'Alias of /confirm (D19)',
          description:
            "From the channel's server only. Model D: a token from the server key (`server_key`); a widget-key token gets 403 " +
            'server_credential_required, a server-key token sent with an Origin header 403 browser_origin_refused (D40).',
          params: ConfirmParams,
          body: ConfirmBody,
          response: { 200: ConfirmResponse, 401: errorRef, 403: errorRef, 404: errorRef, 409: errorRef, 422: errorRef },
        },
      },
      async (request) => {
        const { lang, orderToken } = request.params;
        const result = await confirmOrder(app.ctx, request.channel!, { lang, orderToken, body: request.body });
        // The pre-production checklist tells the first confirm from its idempotent repeat (src/http/integration-steps.ts).
        request.integrationStep = result.alreadyCompleted ? 'confirm_repeated' : 'confirm_exact_amount';
        return ok(result.data, result.alreadyCompleted ? 'Order already confirmed' : 'Order confirmed');
      },
    );
  }
};

export default checkoutRoutes;

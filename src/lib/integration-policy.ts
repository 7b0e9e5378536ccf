import type { IntegrationMode } from '../db/schema/channels.js';

/**
 * What each integration model (SPEC "What the service does", models A-D) allows, in one table.
 * Every rule that depends on a channel's model reads it here: the config endpoint, the B2B route
 * guard (which operations, with which credential scope), the portal storefront and checkout, the
 * payment start and the ticket e-mail of the closing process. A new rule about models is one more
 * column of this table.
 */

/** The two kinds of channel credential (D39): the publishable widget key and the server key. */
export type CredentialScope = 'widget' | 'server';
export const CREDENTIAL_SCOPES: readonly CredentialScope[] = ['widget', 'server'];

/**
 * The B2B operations a route declares (route option `config.b2bOperation`); the guard of
 * src/http/b2b-operation.ts checks the declared one against this table.
 */
export type B2BOperation = 'config' | 'catalogue' | 'cart' | 'confirm' | 'report';
export const B2B_OPERATIONS: readonly B2BOperation[] = ['config', 'catalogue', 'cart', 'confirm', 'report'];

/**
 * The steps of the pre-production integration checklist (SPEC: "A channel must validate in
 * pre-production before going live"; docs/preproduction.md), each recorded the first time the
 * channel's own calls complete it. Which ones a channel needs is its model's `checklist` below.
 */
export type IntegrationStep =
  | 'token_renewed'
  | 'config_read'
  | 'catalogue_read'
  | 'session_read'
  | 'cart_built'
  | 'cart_emptied'
  | 'voucher_applied'
  | 'voucher_removed'
  | 'order_expired'
  | 'confirm_exact_amount'
  | 'confirm_repeated'
  | 'wrong_amount_refused'
  | 'report_read'
  | 'webhook_verified';

/** What every channel does whatever its model: token, config, catalogue, report, webhooks. */
const READ_STEPS: readonly IntegrationStep[] = ['token_renewed', 'config_read', 'catalogue_read', 'session_read'];
/** The cart of the B2B interface (models C and D): the widget builds it. */
const CART_STEPS: readonly IntegrationStep[] = ['cart_built', 'cart_emptied', 'voucher_applied', 'voucher_removed', 'order_expired'];
/** Confirm of a payment the channel collected (models B and D). */
const CONFIRM_STEPS: readonly IntegrationStep[] = ['confirm_exact_amount', 'confirm_repeated', 'wrong_amount_refused'];
const CLOSING_STEPS: readonly IntegrationStep[] = ['report_read', 'webhook_verified'];

/** How the portal's checkout (D26) proceeds: card payment through the provider, the channel's own page, or none. */
type PortalCheckoutKind = 'card' | 'external_page' | null;

export interface ModelPolicy {
  /** The letter of SPEC's table, for messages and docs. */
  model: 'A' | 'B' | 'C' | 'D';
  /** SPEC config `allows_widget`: the widget, and so its publishable key, sits in buyers' pages. */
  allowsWidget: boolean;
  /** The portal storefront (browse, pick seats, cart) sells for the channel (D25). */
  storefront: boolean;
  /** What POST /portal/{slug}/{lang}/checkout and the checkout page do (D26). */
  portalCheckout: PortalCheckoutKind;
  /** The widget shows its checkout button and sends the buyer to the portal (model C). */
  widgetCheckoutButton: boolean;
  /** The channel collects the payment and must call confirm (SPEC `requires_external_payment_callback`). */
  channelCollectsPayment: boolean;
  /** The closing process queues the ticket e-mail (D24: model D's channel sends its own). */
  sendsTicketEmail: boolean;
  /**
   * Per B2B operation, the credential scopes whose tokens may call it (D40). Empty: the model
   * forbids the operation (403 forbidden_for_integration_mode, whatever the credential). A scope
   * missing from a non-empty list: 403 server_credential_required.
   */
  b2b: Record<B2BOperation, readonly CredentialScope[]>;
  /** The steps of the pre-production checklist the channel must complete before going live, in order. */
  checklist: readonly IntegrationStep[];
}

const EVERY_SCOPE: readonly CredentialScope[] = ['widget', 'server'];
const SERVER_ONLY: readonly CredentialScope[] = ['server'];
const NOBODY: readonly CredentialScope[] = [];

export const INTEGRATION_POLICY: Readonly<Record<IntegrationMode, ModelPolicy>> = {
  portal_only: {
    model: 'A',
    allowsWidget: false,
    storefront: true,
    portalCheckout: 'card',
    widgetCheckoutButton: false,
    channelCollectsPayment: false,
    sendsTicketEmail: true,
    // No widget is published in A and B: their widget key keeps every right (SPEC compatibility).
    b2b: { config: EVERY_SCOPE, catalogue: EVERY_SCOPE, cart: NOBODY, confirm: NOBODY, report: EVERY_SCOPE },
    checklist: [...READ_STEPS, ...CLOSING_STEPS],
  },
  portal_external_payment: {
    model: 'B',
    allowsWidget: false,
    storefront: true,
    portalCheckout: 'external_page',
    widgetCheckoutButton: false,
    channelCollectsPayment: true,
    sendsTicketEmail: true,
    b2b: { config: EVERY_SCOPE, catalogue: EVERY_SCOPE, cart: NOBODY, confirm: EVERY_SCOPE, report: EVERY_SCOPE },
    checklist: [...READ_STEPS, ...CONFIRM_STEPS, ...CLOSING_STEPS],
  },
  widget_platform_payment: {
    model: 'C',
    allowsWidget: true,
    storefront: false,
    portalCheckout: 'card',
    widgetCheckoutButton: true,
    channelCollectsPayment: false,
    sendsTicketEmail: true,
    // The widget key is in every buyer's page: it builds carts, it never reads other buyers' data.
    b2b: { config: EVERY_SCOPE, catalogue: EVERY_SCOPE, cart: EVERY_SCOPE, confirm: NOBODY, report: SERVER_ONLY },
    checklist: [...READ_STEPS, ...CART_STEPS, ...CLOSING_STEPS],
  },
  widget_external_payment: {
    model: 'D',
    allowsWidget: true,
    storefront: false,
    portalCheckout: null,
    widgetCheckoutButton: false,
    channelCollectsPayment: true,
    sendsTicketEmail: false,
    // Confirm sells without a payment the service can see: only the channel's server may call it.
    b2b: { config: EVERY_SCOPE, catalogue: EVERY_SCOPE, cart: EVERY_SCOPE, confirm: SERVER_ONLY, report: SERVER_ONLY },
    checklist: [...READ_STEPS, ...CART_STEPS, ...CONFIRM_STEPS, ...CLOSING_STEPS],
  },
};

/** The policy row of a channel's model. */
export const policyOf = (mode: IntegrationMode): ModelPolicy => INTEGRATION_POLICY[mode];

/** The channel must have a `checkout_url`: the portal hands its buyers to the channel's own checkout page (model B). */
export const needsCheckoutUrl = (mode: IntegrationMode): boolean => INTEGRATION_POLICY[mode].portalCheckout === 'external_page';

/** Why a model refuses an operation (403 forbidden_for_integration_mode); only operations some model refuses. */
export const MODEL_REFUSALS: Partial<Record<B2BOperation, string>> = {
  cart: 'Orders through the B2B interface are for integration models C and D only',
  confirm: 'Confirm is only available to channels that collect the payment themselves (models B and D)',
};

/**
 * The operations browsers must never reach (D40): the B2B CORS policy does not admit them. These
 * are the ones some model keeps for the server key.
 */
export const SERVER_SIDE_OPERATIONS: readonly B2BOperation[] = B2B_OPERATIONS.filter((op) =>
  Object.values(INTEGRATION_POLICY).some((p) => p.b2b[op].length > 0 && !p.b2b[op].includes('widget')),
);

/** Modes whose closing process queues the ticket e-mail (handed to close_order, src/db/functions). */
export const TICKET_EMAIL_MODES: readonly IntegrationMode[] = (Object.keys(INTEGRATION_POLICY) as IntegrationMode[]).filter(
  (m) => INTEGRATION_POLICY[m].sendsTicketEmail,
);

/** The verdict of the policy on one B2B call: allowed, or refused by the model or by the credential scope. */
export type OperationVerdict = 'allowed' | 'model_forbids' | 'server_credential_required';

export function operationVerdict(mode: IntegrationMode, operation: B2BOperation, scope: CredentialScope): OperationVerdict {
  const scopes = INTEGRATION_POLICY[mode].b2b[operation];
  if (scopes.length === 0) return 'model_forbids';
  return scopes.includes(scope) ? 'allowed' : 'server_credential_required';
}

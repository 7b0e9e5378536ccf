import { appSingleton, type AppContext } from '../../../app-context.js';
import type { PaymentProviderName } from '../../../db/schema/index.js';
import { AppError } from '../../../http/errors.js';
import type { PaymentProvider } from './payments.provider.js';
import { createSandboxProvider } from './sandbox.provider.js';
import { createStripeProvider } from './stripe.provider.js';

/** The configured payment providers of one app, by name. */
const registry = appSingleton('portal.payment-providers', (ctx) => {
  const map = new Map<PaymentProviderName, PaymentProvider>();
  const { portal } = ctx.config;
  if (portal.paymentProvider === 'sandbox') map.set('sandbox', createSandboxProvider(ctx.config, ctx.database.db, ctx.clock));
  if (portal.stripeSecretKey && portal.stripeWebhookSecret) {
    map.set('stripe', createStripeProvider({ secretKey: portal.stripeSecretKey, webhookSecret: portal.stripeWebhookSecret }));
  }
  return map;
});

/** The provider new card payments go through (PAYMENT_PROVIDER). */
export function activeProvider(ctx: AppContext): PaymentProvider {
  return providerNamed(ctx, ctx.config.portal.paymentProvider);
}

/** A configured provider by name; its notification endpoint is 404 when it is not configured. */
export function providerNamed(ctx: AppContext, name: PaymentProviderName): PaymentProvider {
  const provider = registry(ctx).get(name);
  if (!provider) throw new AppError('not_found.payment_provider', { provider: name });
  return provider;
}

/** Replaces a provider of one app (tests: Stripe against a local stand-in of its API). */
export function installProvider(ctx: AppContext, provider: PaymentProvider): void {
  registry(ctx).set(provider.name, provider);
}

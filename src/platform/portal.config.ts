/**
 * Settings of the portal and its card payments, read from the environment by `loadConfig`
 * (src/config.ts) so that a bad value stops the start like every other variable.
 */
export interface PortalConfig {
  /** Card payment provider of models A and C: the built-in sandbox or Stripe (D27). */
  paymentProvider: 'sandbox' | 'stripe';
  stripeSecretKey: string | undefined;
  stripeWebhookSecret: string | undefined;
}

type Env = Record<string, string | undefined>;

export function loadPortalConfig(env: Env, appEnv: string, fail: (message: string) => never): PortalConfig {
  const provider = env.PAYMENT_PROVIDER || (appEnv === 'production' ? 'stripe' : 'sandbox');
  if (provider !== 'sandbox' && provider !== 'stripe') fail(`PAYMENT_PROVIDER must be sandbox or stripe (got "${provider}")`);
  if (provider === 'sandbox' && appEnv === 'production') fail('PAYMENT_PROVIDER=sandbox is refused when APP_ENV=production');
  const stripeSecretKey = env.STRIPE_SECRET_KEY || undefined;
  const stripeWebhookSecret = env.STRIPE_WEBHOOK_SECRET || undefined;
  if (provider === 'stripe' && (!stripeSecretKey || !stripeWebhookSecret)) {
    fail('PAYMENT_PROVIDER=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET');
  }
  return {
    paymentProvider: provider as PortalConfig['paymentProvider'],
    stripeSecretKey,
    stripeWebhookSecret,
  };
}

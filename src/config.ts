import path from 'node:path';
import { emailProblem } from './lib/email-address.js';
import { loadPortalConfig, type PortalConfig } from './platform/portal.config.js';
import { loadWalletConfig, type WalletConfig } from './platform/wallet.config.js';
import { loadMetricsConfig, loadOverloadConfig, type MetricsConfig, type OverloadConfig } from './http/operations.config.js';
import { loadRateLimitConfig, loadTrustProxy, type RateLimitConfig, type TrustProxy } from './http/rate-limits.config.js';

/** Deployment environments (DECISIONS D3). */
const APP_ENVS = ['production', 'preproduction', 'development', 'test'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

export interface Config {
  appEnv: AppEnv;
  host: string;
  port: number;
  /** Public address of this deployment, without a trailing slash; `{base_url}` is this + `/api`. */
  publicBaseUrl: string;
  /** `{widget_url}`: where the widget script is served (D2). */
  widgetUrl: string;
  /** Where `/` sends visitors in production (LANDING_REDIRECT_URL); unset: a minimal page. */
  landingRedirectUrl: string | undefined;
  /** Base address of the portal checkout the widget redirects to (model C). */
  portalCheckoutBaseUrl: string;
  /** PostgreSQL server; when absent the embedded PGlite database in `dataDir` is used. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Load the demo catalogue of D37 on a fresh database: by default in development and test only (D49). */
  loadDemoData: boolean;
  /** DEMO_ONSALE (default: true in development): the demo catalogue also has an event on sale behind a waiting room (D60). */
  demoOnSale: boolean;
  /** DEMO_SOLD_OUT (default: true in development): the demo catalogue also has a small session sold out at load, its waiting list open (D69). */
  demoSoldOut: boolean;
  tokenTtlSeconds: number;
  maxLiveTokensPerChannel: number;
  cartTtlSeconds: number;
  /** D73: a card checkout extends its cart once to cover the provider's session, to at most this. */
  checkoutHoldSeconds: number;
  maxItemsPerOrder: number;
  /**
   * Best available's kept view of a session's taken seats (D61) lasts this long: another instance's
   * holds and releases may be missed for that long (BEST_AVAILABLE_VIEW_MS; 0 reads on every request).
   */
  bestAvailableViewMs: number;
  /** D69: how long a waiting-list offer holds its seats for the buyer (WAITINGLIST_OFFER_MINUTES). */
  waitingListOfferMinutes: number;
  /** Live carts one buyer may hold at once (D44). */
  maxLiveOrdersPerBuyer: number;
  /**
   * Above this many numbered seats a portal seat page draws each sector as the UI kit's compact map
   * (one canvas from a compact seat list) instead of one button per seat (PORTAL_COMPACT_MAP_ABOVE, issue 29).
   */
  portalCompactMapAbove: number;
  currency: string;
  timezone: string;
  /** Secret for HMAC signatures (ticket links, sandbox payments). */
  signingSecret: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  /** The deployment's default Reply-To of buyer e-mails (an organiser's box office address wins). */
  mailReplyTo: string | null;
  logLevel: string;
  /** How long a verified token is trusted without asking the database again (0 disables). */
  authCacheMs: number;
  dbPoolSize: number;
  /** Portal and card payments (PAYMENT_PROVIDER, STRIPE_*). */
  portal: PortalConfig;
  /** Apple and Google Wallet passes (APPLE_PASS_*, APPLE_WWDR_CERT, GOOGLE_WALLET_*; D70). */
  wallet: WalletConfig;
  /** Rate limits and their store (REDIS_URL, *_RATE_LIMIT_*, ADMIN_LOGIN_*; D45). */
  rateLimits: RateLimitConfig;
  /** Which proxies' X-Forwarded-For names the client address (TRUST_PROXY). */
  trustProxy: TrustProxy;
  /** Seconds a SIGTERM'd instance answers `/readyz` 503 while still serving, before it closes (fleet). */
  shutdownDrainSeconds: number;
  /** GET /metrics: its own port and/or a token (METRICS_PORT, METRICS_HOST, METRICS_TOKEN). */
  metrics: MetricsConfig;
  /** Quick 503s past an event-loop delay or a pool wait (OVERLOAD_*). */
  overload: OverloadConfig;
  /** Human-readable logs (pino-pretty): LOG_PRETTY=1, or development on a terminal; never in production or tests. */
  logPretty: boolean;
}

export class ConfigError extends Error {}

/** The host part of a default address: an IP address is written as an address literal (RFC 5321 4.1.3). */
function mailDomainOf(hostname: string): string {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return `[${host}]`;
  if (host.includes(':')) return `[IPv6:${host}]`;
  return host || 'localhost';
}

/** A display name as a quoted string when it holds anything but atoms and spaces (RFC 5322 3.2.3). */
function quoteDisplayName(name: string): string {
  return /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~ \u0080-\uffff]+$/.test(name) ? name : `"${name.replace(/(["\\])/g, '\\$1')}"`;
}

/**
 * The ticket e-mail's sender: `Name <address>` (the name quoted or not: `Teatro, Real <a@b.example>`
 * is read as `"Teatro, Real" <a@b.example>`) or a bare address (validated, so that a typo fails at
 * start-up, not at the mail server). Unset: "Taquilla" at the public address's host, an IP host
 * written as an address literal (`tickets@[127.0.0.1]`), which strict mail servers accept. A real
 * deployment sets MAIL_FROM to an address of its own domain (docs/tickets-and-email.md).
 */
function mailFrom(raw: string | undefined, publicBaseUrl: string): string {
  if (!raw) {
    const hostname = new URL(publicBaseUrl).hostname;
    const domain = mailDomainOf(hostname);
    return `Taquilla <tickets@${domain}>`;
  }
  const named = /^(?:"((?:[^"\\\r\n]|\\.)*)"|([^<>\r\n"]+?))\s*<([^<>\s]+)>$/.exec(raw.trim());
  const address = named ? named[3]! : raw.trim();
  if (/[\r\n]/.test(raw) || emailProblem(address)) {
    throw new ConfigError(`MAIL_FROM must be an e-mail address or "Name <address>", e.g. "Taquilla <tickets@example.org>" (got "${raw}")`);
  }
  if (!named) return address;
  const name = named[1] !== undefined ? named[1].replace(/\\(.)/g, '$1') : named[2]!.trim();
  return `${quoteDisplayName(name)} <${address}>`;
}

/** Where buyers' replies go when the organiser set no box office address (MAIL_REPLY_TO); null: none. */
function mailReplyTo(raw: string | undefined): string | null {
  if (!raw) return null;
  if (/[\r\n]/.test(raw) || emailProblem(raw.trim())) throw new ConfigError(`MAIL_REPLY_TO must be an e-mail address (got "${raw}")`);
  return raw.trim();
}

/**
 * `config` at another public address: what the command line uses when its environment names none
 * (neither PUBLIC_BASE_URL nor PORT) and the service recorded its own (issue 16). The addresses
 * derived from it follow, unless the environment sets them.
 */
export function atPublicBaseUrl(config: Config, env: Env, publicBaseUrl: string): Config {
  return Object.freeze({
    ...config,
    publicBaseUrl,
    widgetUrl: env.WIDGET_URL ? config.widgetUrl : `${publicBaseUrl}/widget`,
    portalCheckoutBaseUrl: env.PORTAL_CHECKOUT_BASE_URL ? config.portalCheckoutBaseUrl : publicBaseUrl,
  });
}

/** Pino's levels; anything else would only fail later, inside the logger, without naming LOG_LEVEL. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min = 1): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min) {
    throw new ConfigError(`${name} must be a whole number >= ${min} (got "${raw}")`);
  }
  return Number(raw);
}

function url(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  try {
    const parsed = new URL(raw);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL (got "${raw}")`);
  }
  return raw.replace(/\/+$/, '');
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Reads the environment once, validates every variable and returns a frozen Config. */
export function loadConfig(env: Env = process.env): Config {
  const appEnv = (env.APP_ENV || (env.NODE_ENV === 'test' ? 'test' : 'development')) as AppEnv;
  if (!APP_ENVS.includes(appEnv)) {
    throw new ConfigError(`APP_ENV must be one of ${APP_ENVS.join(', ')} (got "${appEnv}")`);
  }
  const port = int(env, 'PORT', 3000, 0);
  if (port > 65535) throw new ConfigError(`PORT must be at most 65535 (got "${port}")`);
  const host = env.HOST || '0.0.0.0';
  const publicBaseUrl = url(env, 'PUBLIC_BASE_URL', `http://localhost:${port}`);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const currency = env.CURRENCY || 'EUR';
  if (!/^[A-Z]{3}$/.test(currency)) throw new ConfigError(`CURRENCY must be an ISO 4217 code (got "${currency}")`);
  const timezone = env.TIMEZONE || 'Europe/Madrid';
  if (!isTimeZone(timezone)) throw new ConfigError(`TIMEZONE must be an IANA time zone (got "${timezone}")`);

  // Development and test run with published defaults (a known signing secret, demo channels with
  // public keys); every other environment is reachable by others and gets neither unasked (D49).
  const publishedDefaults = appEnv === 'development' || appEnv === 'test';
  const signingSecret = env.SIGNING_SECRET || '';
  if (!publishedDefaults && signingSecret.length < 32) {
    throw new ConfigError(`SIGNING_SECRET must be set to at least 32 characters when APP_ENV=${appEnv} (only development and test use the built-in one)`);
  }
  const demoRaw = env.DEMO_DATA || (publishedDefaults ? 'true' : 'false');
  if (!['true', 'false'].includes(demoRaw)) throw new ConfigError(`DEMO_DATA must be true or false (got "${demoRaw}")`);
  const loadDemoData = demoRaw === 'true';
  if (loadDemoData && appEnv === 'production') {
    throw new ConfigError('DEMO_DATA cannot be true when APP_ENV=production (demo keys are public)');
  }
  // `npm start` shows an on-sale (issue 28); the test suites keep the D37 catalogue, every seat of which can be bought at once.
  const demoOnSaleRaw = env.DEMO_ONSALE || (appEnv === 'development' ? 'true' : 'false');
  if (!['true', 'false'].includes(demoOnSaleRaw)) throw new ConfigError(`DEMO_ONSALE must be true or false (got "${demoOnSaleRaw}")`);
  // `npm start` shows a sold-out session taking waiting-list entries (issue 31); the test suites keep the D37 catalogue unless they ask.
  const demoSoldOutRaw = env.DEMO_SOLD_OUT || (appEnv === 'development' ? 'true' : 'false');
  if (!['true', 'false'].includes(demoSoldOutRaw)) throw new ConfigError(`DEMO_SOLD_OUT must be true or false (got "${demoSoldOutRaw}")`);
  const logLevel = env.LOG_LEVEL || (appEnv === 'test' ? 'silent' : 'info');
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  }
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl && !/^smtps?:\/\//.test(smtpUrl)) throw new ConfigError('SMTP_URL must start with smtp:// or smtps://');

  return Object.freeze({
    appEnv,
    host,
    port,
    publicBaseUrl,
    widgetUrl: url(env, 'WIDGET_URL', `${publicBaseUrl}/widget`),
    portalCheckoutBaseUrl: url(env, 'PORTAL_CHECKOUT_BASE_URL', publicBaseUrl),
    landingRedirectUrl: env.LANDING_REDIRECT_URL ? url(env, 'LANDING_REDIRECT_URL', '') : undefined,
    databaseUrl,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    loadDemoData,
    demoOnSale: demoOnSaleRaw === 'true',
    demoSoldOut: demoSoldOutRaw === 'true',
    tokenTtlSeconds: int(env, 'TOKEN_TTL_SECONDS', 24 * 3600),
    maxLiveTokensPerChannel: int(env, 'MAX_LIVE_TOKENS_PER_CHANNEL', 10_000),
    cartTtlSeconds: int(env, 'CART_TTL_SECONDS', 15 * 60),
    checkoutHoldSeconds: int(env, 'CHECKOUT_HOLD_SECONDS', 30 * 60),
    maxItemsPerOrder: int(env, 'MAX_ITEMS_PER_ORDER', 20),
    bestAvailableViewMs: int(env, 'BEST_AVAILABLE_VIEW_MS', 250),
    waitingListOfferMinutes: int(env, 'WAITINGLIST_OFFER_MINUTES', 30),
    maxLiveOrdersPerBuyer: int(env, 'MAX_LIVE_ORDERS_PER_BUYER', 2),
    portalCompactMapAbove: int(env, 'PORTAL_COMPACT_MAP_ABOVE', 5000, 0),
    currency,
    timezone,
    signingSecret: signingSecret || 'dev-only-signing-secret-change-me-in-production',
    smtpUrl,
    mailFrom: mailFrom(env.MAIL_FROM, publicBaseUrl),
    mailReplyTo: mailReplyTo(env.MAIL_REPLY_TO),
    authCacheMs: int(env, 'AUTH_CACHE_MS', 2_000, 0),
    dbPoolSize: int(env, 'DB_POOL_SIZE', 10),
    logLevel,
    portal: loadPortalConfig(env, appEnv, (message) => {
      throw new ConfigError(message);
    }),
    wallet: loadWalletConfig(env, appEnv, (message) => {
      throw new ConfigError(message);
    }),
    rateLimits: loadRateLimitConfig(env, (message) => {
      throw new ConfigError(message);
    }),
    trustProxy: loadTrustProxy(env, (message) => {
      throw new ConfigError(message);
    }),
    shutdownDrainSeconds: int(env, 'SHUTDOWN_DRAIN_SECONDS', 0, 0),
    metrics: loadMetricsConfig(env, (message) => {
      throw new ConfigError(message);
    }),
    overload: loadOverloadConfig(env, appEnv, (message) => {
      throw new ConfigError(message);
    }),
    logPretty: appEnv !== 'production' && appEnv !== 'test' && (env.LOG_PRETTY === '1' || (env.LOG_PRETTY !== '0' && process.stdout.isTTY === true)),
  });
}

import crypto from 'node:crypto';
import fs from 'node:fs';

/**
 * Wallet passes (D70, docs/wallet.md), read by `loadConfig` so that a bad value stops the start.
 * Each provider is all-or-none. Unset outside production: a development signer (generated at the
 * first start and kept in the database, labelled "development pass"); unset in production: the provider is off (no buttons,
 * its routes answer 404 `wallet_not_configured`).
 */
export interface AppleWalletConfig {
  mode: 'configured' | 'development';
  passTypeId: string;
  teamId: string;
  /** PEM texts (read from the files at start when the variables name files). */
  cert: string;
  key: string;
  keyPassphrase: string | undefined;
  wwdr: string;
}

export interface GoogleWalletConfig {
  mode: 'configured' | 'development';
  issuerId: string;
  clientEmail: string;
  /** PEM (PKCS#8) private key of the service account. */
  privateKey: string;
}

export interface WalletConfig {
  /** null: not offered. `'development'`: the development signer (made at the first start, kept in the database). */
  apple: AppleWalletConfig | 'development' | null;
  google: GoogleWalletConfig | 'development' | null;
  /** Where update pushes for saved Apple passes go (APNs, HTTP/2; `APPLE_APNS_URL`), used only with a configured certificate. */
  apnsUrl: string;
  /** The Google Wallet REST API and OAuth token endpoint (`GOOGLE_WALLET_API_URL`, `GOOGLE_OAUTH_TOKEN_URL`), used only when configured. */
  googleApiUrl: string;
  googleTokenUrl: string;
}

type Env = Record<string, string | undefined>;

const APPLE_VARS = ['APPLE_PASS_TYPE_ID', 'APPLE_PASS_TEAM_ID', 'APPLE_PASS_CERT', 'APPLE_PASS_KEY', 'APPLE_WWDR_CERT'] as const;
const GOOGLE_VARS = ['GOOGLE_WALLET_ISSUER_ID', 'GOOGLE_WALLET_SERVICE_ACCOUNT'] as const;

/** A PEM given inline, or the path of a file holding it. */
function pemOrFile(name: string, raw: string, fail: (message: string) => never): string {
  if (raw.includes('-----BEGIN')) return raw.replace(/\\n/g, '\n');
  try {
    return fs.readFileSync(raw, 'utf8');
  } catch {
    return fail(`${name} must be a PEM text or the path of a readable PEM file (cannot read "${raw}")`);
  }
}

function certificate(name: string, pem: string, fail: (message: string) => never): string {
  try {
    new crypto.X509Certificate(pem);
  } catch {
    fail(`${name} is not a PEM X.509 certificate`);
  }
  return pem;
}

function loadApple(env: Env, fail: (message: string) => never): AppleWalletConfig | null {
  const set = APPLE_VARS.filter((n) => env[n]);
  if (set.length === 0) {
    if (env.APPLE_PASS_KEY_PASSPHRASE) fail(`APPLE_PASS_KEY_PASSPHRASE is set but ${APPLE_VARS.join(', ')} are not`);
    return null;
  }
  if (set.length < APPLE_VARS.length) {
    fail(`Apple Wallet needs all of ${APPLE_VARS.join(', ')} (missing ${APPLE_VARS.filter((n) => !env[n]).join(', ')})`);
  }
  const passTypeId = env.APPLE_PASS_TYPE_ID!;
  if (!/^pass\.[A-Za-z0-9.-]{1,200}$/.test(passTypeId)) fail(`APPLE_PASS_TYPE_ID must look like pass.com.example.tickets (got "${passTypeId}")`);
  const teamId = env.APPLE_PASS_TEAM_ID!;
  if (!/^[A-Z0-9]{10}$/.test(teamId)) fail(`APPLE_PASS_TEAM_ID must be the 10-character Apple team id (got "${teamId}")`);
  const cert = certificate('APPLE_PASS_CERT', pemOrFile('APPLE_PASS_CERT', env.APPLE_PASS_CERT!, fail), fail);
  const wwdr = certificate('APPLE_WWDR_CERT', pemOrFile('APPLE_WWDR_CERT', env.APPLE_WWDR_CERT!, fail), fail);
  const key = pemOrFile('APPLE_PASS_KEY', env.APPLE_PASS_KEY!, fail);
  const keyPassphrase = env.APPLE_PASS_KEY_PASSPHRASE || undefined;
  try {
    crypto.createPrivateKey({ key, passphrase: keyPassphrase });
  } catch {
    fail(`APPLE_PASS_KEY is not a PEM private key${keyPassphrase ? ' (or APPLE_PASS_KEY_PASSPHRASE is wrong)' : ' (an encrypted key needs APPLE_PASS_KEY_PASSPHRASE)'}`);
  }
  return { mode: 'configured', passTypeId, teamId, cert, key, keyPassphrase, wwdr };
}

function loadGoogle(env: Env, fail: (message: string) => never): GoogleWalletConfig | null {
  const set = GOOGLE_VARS.filter((n) => env[n]);
  if (set.length === 0) return null;
  if (set.length < GOOGLE_VARS.length) fail(`Google Wallet needs both ${GOOGLE_VARS.join(' and ')} (missing ${GOOGLE_VARS.filter((n) => !env[n]).join(', ')})`);
  const issuerId = env.GOOGLE_WALLET_ISSUER_ID!;
  if (!/^\d{1,30}$/.test(issuerId)) fail(`GOOGLE_WALLET_ISSUER_ID must be the numeric issuer id (got "${issuerId}")`);
  const raw = env.GOOGLE_WALLET_SERVICE_ACCOUNT!;
  let text = raw;
  if (!raw.trim().startsWith('{')) {
    try {
      text = fs.readFileSync(raw, 'utf8');
    } catch {
      fail(`GOOGLE_WALLET_SERVICE_ACCOUNT must be the service account's JSON key or the path of its file (cannot read "${raw}")`);
    }
  }
  let json: { client_email?: unknown; private_key?: unknown };
  try {
    json = JSON.parse(text) as typeof json;
  } catch {
    return fail('GOOGLE_WALLET_SERVICE_ACCOUNT is not valid JSON');
  }
  if (typeof json.client_email !== 'string' || typeof json.private_key !== 'string') {
    fail('GOOGLE_WALLET_SERVICE_ACCOUNT must hold client_email and private_key (a service account JSON key)');
  }
  try {
    const key = crypto.createPrivateKey(json.private_key as string);
    if (key.asymmetricKeyType !== 'rsa') throw new Error('not rsa');
  } catch {
    fail("GOOGLE_WALLET_SERVICE_ACCOUNT's private_key is not a PEM RSA private key");
  }
  return { mode: 'configured', issuerId, clientEmail: json.client_email as string, privateKey: json.private_key as string };
}

/** An http(s) base URL without a trailing slash. */
function baseUrl(name: string, raw: string | undefined, fallback: string, fail: (message: string) => never): string {
  const value = raw || fallback;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail(`${name} must be an http(s) URL (got "${value}")`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`${name} must be an http(s) URL (got "${value}")`);
  return value.replace(/\/+$/, '');
}

export function loadWalletConfig(env: Env, appEnv: string, fail: (message: string) => never): WalletConfig {
  const apple = loadApple(env, fail);
  const google = loadGoogle(env, fail);
  const development = appEnv !== 'production';
  return {
    apple: apple ?? (development ? 'development' : null),
    google: google ?? (development ? 'development' : null),
    apnsUrl: baseUrl('APPLE_APNS_URL', env.APPLE_APNS_URL, 'https://api.push.apple.com', fail),
    googleApiUrl: baseUrl('GOOGLE_WALLET_API_URL', env.GOOGLE_WALLET_API_URL, 'https://walletobjects.googleapis.com/walletobjects/v1', fail),
    googleTokenUrl: baseUrl('GOOGLE_OAUTH_TOKEN_URL', env.GOOGLE_OAUTH_TOKEN_URL, 'https://oauth2.googleapis.com/token', fail),
  };
}

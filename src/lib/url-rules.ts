import { Type } from '@fastify/type-provider-typebox';
import type { AppEnv } from '../config.js';

// One rule for addresses and one for colours that end up in pages, redirects and stylesheets
// (DECISIONS D50): `checkout_url`, `logo_url`, `image_url` (and webhook URLs). Every entry point
// uses these: the catalogue import, the admin API, the dashboard and the command line. The schema
// fragments document the rule in the OpenAPI and the import's JSON Schema; the functions decide,
// because "https only in production" depends on the deployment, which a static schema cannot know.

// Written without flags, so that JSON Schema validators read the pattern as this code does.
const HTTP_URL = /^[hH][tT][tT][pP][sS]?:\/\/\S+$/;
const CONTROL = /\p{Cc}/u;
const COLOUR = /^#[0-9a-fA-F]{6}$/;
const MAX_URL_LENGTH = 2000;

/** TypeBox fragment of an http(s) URL; pair it with `urlProblem`, which also knows about production. */
export const httpUrlSchema = (description?: string) =>
  Type.String({
    pattern: HTTP_URL.source,
    maxLength: MAX_URL_LENGTH,
    description: `${description ? `${description}; ` : ''}an http: or https: URL (https: only when APP_ENV=production)`,
  });

/** TypeBox fragment of a colour: `#rrggbb`. */
export const colourSchema = (description?: string) =>
  Type.String({ pattern: COLOUR.source, description: `${description ? `${description}; ` : ''}a colour like #1f4fd1` });

/** Why `value` is not an acceptable URL in this environment, or null when it is. */
export function urlProblem(value: string, appEnv: AppEnv): string | null {
  const httpsOnly = appEnv === 'production';
  const wanted = httpsOnly ? 'must be an https URL (APP_ENV=production)' : 'must be an http(s) URL';
  if (value.length > MAX_URL_LENGTH) return `must be a URL of at most ${MAX_URL_LENGTH} characters`;
  // The pattern first: URL() quietly repairs what a browser would read differently ("http:evil", tabs).
  if (!HTTP_URL.test(value) || CONTROL.test(value)) return wanted;
  let protocol: string;
  try {
    protocol = new URL(value).protocol;
  } catch {
    return wanted;
  }
  if (protocol === 'https:' || (protocol === 'http:' && !httpsOnly)) return null;
  return wanted;
}

/** Why `value` is not a `#rrggbb` colour, or null when it is. */
export const colourProblem = (value: string): string | null => (COLOUR.test(value) ? null : 'must be a colour like #1f4fd1');

/** True for a `#rrggbb` colour (for output: a stored value is checked again before it enters a stylesheet). */
export const isColour = (value: unknown): value is string => typeof value === 'string' && COLOUR.test(value);

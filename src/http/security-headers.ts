import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { Config } from '../config.js';

// The security headers of every response, in one place (DECISIONS D50), on helmet.
// Every response: X-Content-Type-Options nosniff, a Referrer-Policy, HSTS when PUBLIC_BASE_URL is
// https. HTML pages add a Content-Security-Policy made for what the page loads, and refuse to be
// framed (frame-ancestors 'none', X-Frame-Options DENY), the widget example pages excepted: they
// stand for a partner's page. A plugin that serves pages calls `usePagePolicy` with its kind; an
// HTML answer that no policy claimed still gets the strictest one (see `registerSecurityHeaders`).

/** The kinds of HTML page the service serves, each with its own Content-Security-Policy. */
export type PageKind = 'portal' | 'dashboard' | 'docs' | 'widgetExamples' | 'scanner';

type Directives = Record<string, string[]>;

const NONE = ["'none'"];
const SELF = ["'self'"];
/**
 * For an HTML answer that no page policy claimed (a plugin's own 404 page, a page added without a
 * policy): our stylesheets only, no script, never framed.
 */
const STRICTEST = "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const origin = (url: string) => new URL(url).origin;

/** The content types the onSend hook below may change (each of its rules is about a text type). */
const TEXT = /^text\//i;

function directives(kind: PageKind, config: Config): Directives {
  const common = { defaultSrc: NONE, baseUri: NONE, objectSrc: NONE, formAction: SELF, frameAncestors: NONE };
  switch (kind) {
    // Storefront, checkout, order page, sandbox card page: our CSS and portal.js from 'self'; the
    // one inline <style> (the channel's colour) carries the reply's nonce; the seat map places its
    // seats with style attributes, which cannot carry a nonce (and cannot run script). Event images
    // are the catalogue's image_url, on any https host (http too outside production, like the widget's logo).
    case 'portal':
      return { ...common, scriptSrc: SELF, styleSrc: SELF, styleSrcAttr: ["'unsafe-inline'"], imgSrc: [...SELF, 'data:', 'https:', ...(config.appEnv === 'production' ? [] : ['http:'])], fontSrc: SELF, connectSrc: SELF };
    // The back office: only its own script and stylesheet.
    case 'dashboard':
      return { ...common, scriptSrc: SELF, styleSrc: SELF, imgSrc: [...SELF, 'data:'], connectSrc: SELF };
    // The API reference (Swagger UI, not ours): its scripts from 'self'; it styles elements inline.
    // "Try it out" calls the public address, which may differ from the page's own behind a proxy.
    case 'docs':
      return {
        ...common,
        scriptSrc: SELF,
        styleSrc: [...SELF, "'unsafe-inline'"],
        imgSrc: [...SELF, 'data:'],
        fontSrc: [...SELF, 'data:'],
        connectSrc: [...SELF, origin(config.publicBaseUrl)],
      };
    // A partner's page with the widget: its inline script and style carry the nonce; the widget
    // script comes from WIDGET_URL, calls the API at PUBLIC_BASE_URL and shows the channel's logo
    // (any https host). The widget's styles are a constructed stylesheet (CSSOM, outside style-src)
    // and it writes no markup strings, so the page enforces Trusted Types as a strict partner may.
    // No frame-ancestors: such a page may be framed.
    case 'widgetExamples': {
      const { frameAncestors: _framable, ...rest } = common;
      return {
        ...rest,
        scriptSrc: [...SELF, origin(config.widgetUrl)],
        styleSrc: SELF,
        requireTrustedTypesFor: ["'script'"],
        imgSrc: [...SELF, 'data:', 'https:', ...(config.appEnv === 'production' ? [] : ['http:'])],
        connectSrc: [...SELF, origin(config.publicBaseUrl)],
      };
    }
    // The check-in scanner (/checkin): its module script, stylesheet, manifest and service worker
    // from 'self', calls to the check-in API on 'self'; the camera's stream is not a fetch.
    case 'scanner':
      return { ...common, scriptSrc: SELF, styleSrc: SELF, imgSrc: [...SELF, 'data:'], connectSrc: SELF, manifestSrc: SELF, workerSrc: SELF, mediaSrc: [...SELF, 'blob:'] };
  }
}

/** A page policy (usePagePolicy): helmet's options, and whether the page's CSP carries per-reply nonces. */
type PagePolicy = HelmetOptions & { enableCSPNonces?: boolean };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's page policy (usePagePolicy); absent on the API's routes. */
    helmet?: PagePolicy;
  }
  interface FastifyReply {
    /** The reply's CSP nonces, on the pages whose policy has them (portal, widget examples). */
    cspNonce: { script: string; style: string } | null;
  }
}

type Middleware = (req: unknown, res: ServerResponse, next: (err?: unknown) => void) => void;

/** What a helmet middleware does to a response: its header writes, in order. */
type HeaderOps = readonly (readonly [name: string, value: string | null])[];

/**
 * The header writes of a helmet middleware whose headers do not depend on the request (every
 * policy but a nonce page's), taken once by running it on a recorder: replaying them is what the
 * middleware would do, without its chain of callbacks per response.
 */
function recordHeaders(middleware: Middleware): HeaderOps {
  const ops: [string, string | null][] = [];
  const recorder = {
    setHeader: (name: string, value: string) => ops.push([name, value]),
    removeHeader: (name: string) => ops.push([name, null]),
  } as unknown as ServerResponse;
  middleware(null, recorder, done);
  return ops;
}

/** Replays recorded header writes on a response, in their order (a null value removes the header). */
function applyHeaders(ops: HeaderOps, res: ServerResponse): void {
  for (const [name, value] of ops) {
    if (value === null) res.removeHeader(name);
    else res.setHeader(name, value);
  }
}

/** A page policy ready to apply: its options over those of every response, and its headers. */
interface BuiltPolicy {
  options: HelmetOptions;
  /** Whether each reply gets fresh nonces in its CSP (then its middleware is built per reply). */
  nonces: boolean;
  /** The policy's header writes (not used when `nonces`). */
  headers: HeaderOps;
}

/** Helmet throws rather than passing an error on (since 8.1); kept as @fastify/helmet keeps it. */
function done(error?: unknown): void {
  if (error) throw error;
}

/**
 * The security headers of every response, as @fastify/helmet 13 set them (same helmet middleware,
 * same options, same headers in the same order, set on the raw response in the first hook after the
 * overload check), with the middleware built and its header writes recorded once per policy instead
 * of on every request: the plugin called `helmet(options)`, which validates the options and builds
 * every header value, in each request, and then ran its chain of middlewares (issue 27). A page whose
 * policy has nonces still builds its CSP per reply.
 */
export async function registerSecurityHeaders(app: FastifyInstance, config: Config): Promise<void> {
  const https = config.publicBaseUrl.startsWith('https:');
  const everyResponse: HelmetOptions = {
    contentSecurityPolicy: false,
    xContentTypeOptions: true,
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
    xFrameOptions: false,
    // The rest of helmet's defaults would change what cross-origin callers of the API (the widget,
    // partner sites) may do, or are obsolete; each page kind decides for itself.
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  };
  const everyResponseHeaders = recordHeaders(helmet(everyResponse) as Middleware);
  /** Each page policy over the options of every response, built once (keyed by the policy object, one per page kind and scope). */
  const pageMiddleware = new WeakMap<PagePolicy, BuiltPolicy>();
  const pageOf = (policy: PagePolicy): BuiltPolicy => {
    let page = pageMiddleware.get(policy);
    if (!page) {
      const { enableCSPNonces, ...pageOptions } = policy;
      const options = { ...everyResponse, ...pageOptions } as HelmetOptions;
      const nonces = enableCSPNonces === true && options.contentSecurityPolicy !== false;
      page = { options, nonces, headers: nonces ? [] : recordHeaders(helmet(options) as Middleware) };
      pageMiddleware.set(policy, page);
    }
    return page;
  };
  app.decorateReply('cspNonce', null);
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, next: (err?: Error) => void) => {
    const policy = request.routeOptions.config.helmet;
    if (policy === undefined) applyHeaders(everyResponseHeaders, reply.raw);
    else {
      const page = pageOf(policy);
      if (page.nonces) withNonces(page.options, reply)(request.raw, reply.raw, done);
      else applyHeaders(page.headers, reply.raw);
    }
    next();
  });
  // A page that no policy claimed is still never framed and runs nothing. Only text answers have
  // anything to add (the API's JSON passes at once); a callback hook, no promise per response.
  app.addHook('onSend', (_request: FastifyRequest, reply: FastifyReply, payload: unknown, next: (err: null, payload: unknown) => void) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (!TEXT.test(type)) return next(null, payload);
    // Every page is UTF-8 and says so (issue 31): Fastify adds the charset to JSON only.
    if (/^text\/(html|css|plain|calendar)\b/i.test(type) && !/;\s*charset=/i.test(type)) reply.header('content-type', `${type}; charset=utf-8`);
    if (!reply.hasHeader('content-security-policy') && type.startsWith('text/html')) {
      reply.header('content-security-policy', STRICTEST);
      reply.header('x-frame-options', 'DENY');
    }
    next(null, payload);
  });
}

/** A page's helmet with this reply's fresh nonces added to its script and style sources. */
function withNonces(options: HelmetOptions, reply: FastifyReply): Middleware {
  const nonce = (reply.cspNonce = { script: randomBytes(16).toString('hex'), style: randomBytes(16).toString('hex') });
  const csp = options.contentSecurityPolicy as { directives: Directives; reportOnly?: boolean; useDefaults?: boolean };
  const directives = { ...csp.directives };
  directives.scriptSrc = [...(directives.scriptSrc ?? []), `'nonce-${nonce.script}'`];
  directives.styleSrc = [...(directives.styleSrc ?? []), `'nonce-${nonce.style}'`];
  return helmet({ ...options, contentSecurityPolicy: { directives, reportOnly: csp.reportOnly, useDefaults: csp.useDefaults } }) as Middleware;
}

/**
 * Gives every route of `scope` (a plugin serving HTML pages) the page policy of `kind`. Call it
 * first in the plugin, before its routes. Pages with inline markup read the nonce with `cspNonce`.
 */
export function usePagePolicy(scope: FastifyInstance, kind: PageKind): void {
  const config = scope.ctx.config;
  const helmetOptions = {
    enableCSPNonces: kind === 'portal' || kind === 'widgetExamples',
    contentSecurityPolicy: { useDefaults: false, directives: directives(kind, config) },
    xFrameOptions: kind === 'widgetExamples' ? false : { action: 'deny' as const },
    referrerPolicy: { policy: kind === 'widgetExamples' ? ('strict-origin-when-cross-origin' as const) : ('same-origin' as const) },
  };
  scope.addHook('onRoute', (route) => {
    route.config = { ...route.config, helmet: helmetOptions } as typeof route.config;
  });
}

/** The reply's CSP nonces ('' when the route has none: then no policy needs them either). */
export const cspNonce = (reply: FastifyReply): { script: string; style: string } => reply.cspNonce ?? { script: '', style: '' };

import { render } from 'preact';
import { createController, type Controller } from './controller.js';
import { createApiClient, type ApiClient, type FetchLike } from './http.js';
import { pickLang, prepareFormats } from './i18n.js';
import { browserStorage, clientId } from './persistence.js';
import type { Order, Policy, WidgetConfig } from './types.js';
import { App } from './ui/App.js';
import { css } from './ui/styles.js';

/**
 * `TicketWidget`: the embeddable purchase widget (SPEC "Widget (models C and D)"). Nothing runs on
 * load; the host page calls `TicketWidget.init(config)` and gets an instance.
 */

declare const __TAQUILLA_API_BASE__: string;

export const version = '1.0.0';

export interface TicketWidgetInstance {
  getOrder(): Order | null;
  startCheckout(): void;
  notifyPaymentComplete(order?: Order | null): void;
  destroy(): void;
  /** `{ integrationMode, paymentHandler }` once the channel configuration has loaded, else null. */
  readonly policy: Policy | null;
}

// The address of this script, read while it executes: the API lives next to it (D2) unless the
// build baked another address in (a CDN copy).
const scriptSrc = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null)?.src : undefined;

/** `{base_url}` of the service this script belongs to. */
export function apiBaseFrom(src: string | undefined, baked: string, pageOrigin: string): string {
  if (baked) return baked.replace(/\/+$/, '');
  if (!src) return `${pageOrigin}/api`;
  const url = new URL(src, pageOrigin);
  const path = url.pathname.replace(/\/v1\/[^/]*$/, '').replace(/\/widget$/, '');
  return `${url.origin}${path}/api`;
}

// One HTTP client (and so one token) per page and channel (SPEC "Widget" rule 1).
const clients = new Map<string, ApiClient>();
let active: { controller: Controller; host: Element; mount: Element } | null = null;
/** The language of the live instance: its requests ask for error messages in it. */
let currentLang = 'es';

function fail(message: string): never {
  throw new Error(`TicketWidget.init: ${message}`);
}

function validate(config: WidgetConfig): { container: Element; sessionId: number } {
  if (!config || typeof config !== 'object') fail('a config object is required');
  const sessionId = Number(config.sessionId);
  if (config.sessionId === undefined || config.sessionId === null || config.sessionId === '') {
    fail('`sessionId` is required (the id of the session to sell)');
  }
  if (!Number.isInteger(sessionId) || sessionId < 1) fail('`sessionId` must be a positive integer');
  if (!config.channelSlug || typeof config.channelSlug !== 'string') fail('`channelSlug` is required');
  if (!config.apiKey || typeof config.apiKey !== 'string') fail('`apiKey` (the channel\'s widget_key) is required');
  if (!config.container) fail('`container` (a CSS selector) is required');
  const container = typeof config.container === 'string' ? document.querySelector(config.container) : config.container;
  if (!container) fail(`no element matches container "${String(config.container)}"`);
  return { container, sessionId };
}

/** The widget's stylesheet, made once per page and shared by every instance's shadow root. */
let sheet: CSSStyleSheet | null = null;

/**
 * Styles the shadow root with a constructed stylesheet: CSSOM, not markup, so a partner page's
 * `style-src` needs neither 'unsafe-inline' nor a hash that changes with every build. Browsers
 * without constructable stylesheets (Safari before 16.4, Firefox before 101) get the same rules in
 * a <style> element, which only a CSP allowing inline styles lets through there.
 */
function adoptStyles(shadow: ShadowRoot) {
  if ('adoptedStyleSheets' in shadow && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
    }
    shadow.adoptedStyleSheets = [sheet];
    return;
  }
  const style = document.createElement('style');
  style.textContent = css;
  shadow.appendChild(style);
}

function teardown() {
  if (!active) return;
  active.controller.destroy();
  render(null, active.mount);
  active.host.remove();
  active = null;
}

export function init(config: WidgetConfig): TicketWidgetInstance {
  const { container, sessionId } = validate(config);
  if (active) {
    console.warn('TicketWidget: init() was called while another instance is live; it replaces the first one. Call destroy() before each re-initialisation.');
    teardown();
  }
  const storage = browserStorage();
  const baseUrl = apiBaseFrom(scriptSrc, __TAQUILLA_API_BASE__, location.origin);
  const key = `${baseUrl}|${config.channelSlug}|${config.apiKey}`;
  let api = clients.get(key);
  if (!api) {
    // Accept-Language asks the service for its error messages in the widget's language (a
    // CORS-safelisted header); the client is shared, so it reads the live instance's language.
    const fetcher: FetchLike = (url, init) =>
      fetch(url, { ...init, headers: { ...init.headers, 'accept-language': currentLang }, credentials: 'omit', mode: 'cors' });
    api = createApiClient({ baseUrl, channelSlug: config.channelSlug, apiKey: config.apiKey, clientId: clientId(storage), fetch: fetcher });
    clients.set(key, api);
  }
  const lang = pickLang(config.lang ?? document.documentElement.lang);
  currentLang = lang;
  const controller = createController({
    api,
    storage,
    channelSlug: config.channelSlug,
    sessionId,
    lang,
    // The service's clock (learnt from its answers), not the device's: holds end when the service ends them.
    now: () => api.clock.now(),
    navigate: (url) => window.location.assign(url),
    warn: (message) => console.warn(message),
    onOrderUpdate: config.onOrderUpdate,
    onOrderComplete: config.onOrderComplete,
    onError: config.onError,
    whileLoading: () => prepareFormats(lang, controller.state.channel?.currency, controller.state.channel?.timezone),
  });

  // The first requests leave before anything is drawn: the network wait then covers the first render.
  void controller.start();
  // A custom element name as host: page rules for div, section, etc. never match it.
  const host = document.createElement('taquilla-widget');
  container.appendChild(host);
  const shadow = host.attachShadow({ mode: 'open' });
  adoptStyles(shadow);
  const mount = document.createElement('div');
  shadow.appendChild(mount);
  render(<App controller={controller} lang={lang} />, mount);
  const mine = { controller, host, mount };
  active = mine;

  return {
    getOrder: () => controller.getOrder(),
    startCheckout: () => controller.startCheckout(),
    notifyPaymentComplete: (order?: Order | null) => controller.notifyPaymentComplete(order),
    destroy: () => {
      if (active === mine) teardown();
    },
    get policy() {
      return controller.state.policy;
    },
  };
}

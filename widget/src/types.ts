/** Shapes of the service's responses the widget reads (DECISIONS D33-D36). */
import type { operations } from '../../clients/typescript/schema.js';

/**
 * The `data` of an operation's 200 answer, as the API's generated types say (clients/typescript/
 * schema.ts, `npm run client:generate`): the route schemas are the one place such a shape is written.
 */
type ApiData<Operation extends keyof operations> = operations[Operation]['responses'] extends {
  200: { content: { 'application/json': { data: infer Data } } };
}
  ? Data
  : never;

/** The channel's public configuration (`GET .../config`). */
export type ChannelConfig = ApiData<'getChannelConfig'>;
export type Branding = ChannelConfig['branding'];
type IntegrationMode = ChannelConfig['integration_mode'];

export interface Rate {
  id: number;
  name: string;
  price: number;
  meta?: Record<string, unknown>;
}

export interface OrderItem {
  id: number;
  session_seat_id: number | null;
  sector_id: number | null;
  rate_id: number;
  base_amount: number;
  discount_amount: number;
  fee_amount: number;
  total_amount: number;
  // Descriptive fields a server may add (row, number, rate name): used when present.
  row?: string | null;
  number?: string | null;
  rate_name?: string | null;
}

interface Voucher {
  code: string;
  [key: string]: unknown;
}

/** One ticket's wallet links in the confirm response (D70); null where the deployment offers no such wallet. */
interface WalletLinks {
  item_id: number;
  apple: string | null;
  google: string | null;
}

export interface Order {
  order_token: string;
  status: string;
  total_amount: number;
  expires_at: string | null;
  currency?: string;
  events: { id: number; name?: string; sessions: { id: number; start_datetime?: string; items: OrderItem[] }[] }[];
  vouchers?: Voucher[];
  /** Present in the confirm response the host passes to notifyPaymentComplete. */
  ticket_wallet_urls?: WalletLinks[];
}

/** The session's seat layout in columns (`GET .../sessions/{id}/layout`, issue 29): seat i is id[i], sector_id[i], ... */
export type SessionLayout = ApiData<'getSessionLayout'>;

/** One seat of SessionLayout: `{ id: id[i], sector_id: sector_id[i], row: row[i], ... }`. */
type SeatPlace = { [Column in keyof SessionLayout['seats']]: SessionLayout['seats'][Column][number] };

/** A numbered seat of the session detail: its place (a row of SessionLayout's columns), state and rates. */
interface SessionSeat extends SeatPlace {
  status: string;
  rates?: Rate[];
}

interface SessionSector {
  id: number;
  name: string;
  numbered: boolean;
  capacity?: number;
  available?: number;
  rates?: Rate[];
}

export interface SessionDetail {
  session: { id: number; event_id: number; start_datetime?: string; name?: string; event_name?: string };
  event?: { id: number; name?: string };
  elements: { seats: SessionSeat[]; sectors: SessionSector[] };
}

/** An event of the channel's list (`GET .../events`). */
export type EventSummary = ApiData<'listEvents'>[number];

export interface MapSector {
  id: number;
  name?: string;
  numbered?: boolean;
  seats?: Omit<SeatPlace, 'sector_id'>[];
}

/** The public config of `TicketWidget.init` (SPEC "Widget"). */
export interface WidgetConfig {
  container: string | Element;
  channelSlug: string;
  sessionId: number | string;
  apiKey: string;
  lang?: string;
  onOrderUpdate?: (order: Order | null) => void;
  onOrderComplete?: (order: Order | null) => void;
  /**
   * Called after each failed start (configuration, session or token not loaded) with a
   * `TicketWidgetError` (`code`, `status`, `retrying`). An addition to SPEC's keys.
   */
  onError?: (error: Error & { code: string; status: number; retrying: boolean }) => void;
}

export interface Policy {
  integrationMode: IntegrationMode;
  /** Who takes the payment: the service's portal (model C) or the host page (model D). */
  paymentHandler: 'portal' | 'host';
}

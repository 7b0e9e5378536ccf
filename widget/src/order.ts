import type { Order, OrderItem } from './types.js';

/** Every item of an order, in the order's own nesting order (events > sessions > items). */
export function orderItems(order: Order | null): OrderItem[] {
  if (!order) return [];
  return order.events.flatMap((e) => e.sessions.flatMap((s) => s.items));
}

export const itemCount = (order: Order | null): number => orderItems(order).length;

/**
 * Seconds left before the cart expires, or null when no countdown is shown: no order, no items, or
 * no `expires_at` (an empty order has none, D13). Never negative.
 */
export function secondsLeft(order: Order | null, now: number): number | null {
  if (!order || itemCount(order) === 0 || !order.expires_at) return null;
  return Math.max(0, Math.ceil((Date.parse(order.expires_at) - now) / 1000));
}

/** True when the response data of an order call is the order itself (D35), not a fragment. */
export function isOrder(data: unknown): data is Order {
  const o = data as Order | null;
  return !!o && typeof o.order_token === 'string' && Array.isArray(o.events);
}

/** Session seat ids held by the order, for drawing "your seats" on the map. */
export function seatIdsInOrder(order: Order | null): Set<number> {
  const ids = new Set<number>();
  for (const item of orderItems(order)) if (item.session_seat_id != null) ids.add(item.session_seat_id);
  return ids;
}

/** Stable fingerprint of what the host sees of an order, to fire onOrderUpdate only on a change. */
export function orderFingerprint(order: Order | null): string {
  return order ? JSON.stringify(order) : 'null';
}

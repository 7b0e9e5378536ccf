/** ISO 8601 with an explicit UTC offset (D12), e.g. 2026-11-21T10:00:00+00:00. */
export function isoWithOffset(date: Date | null | undefined): string | null {
  if (!date) return null;
  return date.toISOString().replace(/\.\d{3}Z$/, '+00:00').replace(/Z$/, '+00:00');
}

/**
 * ISO 8601 with an explicit UTC offset and the milliseconds kept, e.g. 2026-11-21T10:00:03.240+00:00:
 * for instants a client counts down to (a cart's `expires_at`), where a whole-second value would
 * end the countdown up to a second early.
 */
export function isoWithMillis(date: Date | null | undefined): string | null {
  if (!date) return null;
  return date.toISOString().replace(/Z$/, '+00:00');
}

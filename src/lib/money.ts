/** Minor units (cents) to the JSON number of the API: at most two decimals (D11). */
export const toAmount = (minor: number): number => Math.round(minor) / 100;

/** A JSON amount to minor units, exact for any value with at most two decimals. */
export function toMinor(amount: number): number | null {
  if (!Number.isFinite(amount)) return null;
  const minor = Math.round(amount * 100);
  // Reject values with more than two decimals (e.g. 10.005) instead of rounding them silently.
  return Math.abs(minor - amount * 100) < 1e-6 ? minor : null;
}

/** Basis-point percentage of an amount, rounded half away from zero. */
export const percentOf = (minor: number, basisPoints: number): number =>
  Math.sign(minor) * Math.round((Math.abs(minor) * basisPoints) / 10_000);

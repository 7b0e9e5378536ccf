/** Minor units (cents) to the JSON number of the API: at most two decimals (D11). */
export const toAmount = (minor: number): number => Math.round(minor) / 100;

/** A number's shortest decimal form (JavaScript's String) with at most two decimals, no exponent. */
const TWO_DECIMALS = /^-?\d+(\.\d{1,2})?$/;

/**
 * Whether a JSON number has at most two decimals (D11, D56), decided on the number's shortest
 * decimal form, never by floating-point division: every two-decimal amount (19.99, 33.33, 1.15,
 * 0.07) passes, and 46.5 + 1e-9 (46.500000001) or 10.005 does not.
 */
export const hasAtMostTwoDecimals = (amount: unknown): amount is number =>
  typeof amount === 'number' && Number.isFinite(amount) && TWO_DECIMALS.test(String(amount));

/** A JSON amount to minor units, exact for any value with at most two decimals; null for any other value. */
export function toMinor(amount: number): number | null {
  // Refuse values with more than two decimals (e.g. 10.005) instead of rounding them silently.
  if (!hasAtMostTwoDecimals(amount)) return null;
  // Exact: the shortest form has at most two decimals, so amount * 100 is within a rounding error of an integer.
  return Math.round(amount * 100);
}

/** Basis-point percentage of an amount, rounded half away from zero. */
export const percentOf = (minor: number, basisPoints: number): number =>
  Math.sign(minor) * Math.round((Math.abs(minor) * basisPoints) / 10_000);

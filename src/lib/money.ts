/** Minor units (cents) to the JSON number of the API: at most two decimals (D11). */
export const toAmount = (minor: number): number => Math.round(minor) / 100;

/** A number's shortest decimal form (JavaScript's String) with at most two decimals, no exponent. */
const TWO_DECIMALS = /^-?\d+(\.\d{1,2})?$/;

/**
 * How far from a whole number of cents an amount computed by a client may be (floating-point
 * noise such as 0.1 + 0.2 = 0.30000000000000004): a billionth of a cent. 46.5 + 1e-9 is a tenth of
 * a millionth of a cent away, and refused.
 */
const NOISE_CENTS = 1e-9;

/**
 * Whether a JSON number has at most two decimals (D11, D56), decided on the number's shortest
 * decimal form, never by floating-point division: every two-decimal amount (19.99, 33.33, 1.15,
 * 0.07) passes, and 46.5 + 1e-9 (46.500000001) or 10.005 does not. Floating-point noise below a
 * billionth of a cent passes too.
 */
export function hasAtMostTwoDecimals(amount: unknown): amount is number {
  if (typeof amount !== 'number' || !Number.isFinite(amount)) return false;
  if (TWO_DECIMALS.test(String(amount))) return true;
  const cents = amount * 100;
  return Math.abs(cents - Math.round(cents)) < NOISE_CENTS;
}

/** A JSON amount to minor units, exact for any value with at most two decimals; null for any other value. */
export function toMinor(amount: number): number | null {
  // Refuse values with more than two decimals (e.g. 10.005) instead of rounding them silently.
  if (!hasAtMostTwoDecimals(amount)) return null;
  // Exact: amount * 100 is within a rounding error (or the noise above) of a whole number of cents.
  return Math.round(amount * 100);
}

/** Basis-point percentage of an amount, rounded half away from zero. */
export const percentOf = (minor: number, basisPoints: number): number =>
  Math.sign(minor) * Math.round((Math.abs(minor) * basisPoints) / 10_000);

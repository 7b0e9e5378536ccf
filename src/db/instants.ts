import { isoWithOffset } from '../lib/time.js';

/**
 * An instant (a `timestamptz` column) as a raw SQL query returns it: text through drizzle's
 * node-postgres driver, a Date on PGlite. Read it through dbDate or dbIso, never by its type.
 */
export type DbTime = Date | string;

/** The Date of a raw query's instant; null stays null. */
export function dbDate(value: DbTime): Date;
export function dbDate(value: DbTime | null): Date | null;
export function dbDate(value: DbTime | null): Date | null {
  return value === null ? null : value instanceof Date ? value : new Date(value);
}

/** A raw query's instant as ISO 8601 with its offset (D12); null stays null. */
export function dbIso(value: DbTime): string;
export function dbIso(value: DbTime | null): string | null;
export function dbIso(value: DbTime | null): string | null {
  return value === null ? null : isoWithOffset(dbDate(value));
}

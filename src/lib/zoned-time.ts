// Times typed and shown in the deployment's time zone (TIMEZONE, D12) in dashboard forms: a
// datetime-local value ("2031-05-01T18:00") means that wall-clock time in the zone.

const wallClocks = new Map<string, Intl.DateTimeFormat>();

/**
 * The wall-clock time of `timeZone` at `instant`, as a Date whose UTC fields are that time (to the
 * second): what the zone's clocks show. Spreadsheets (lib/xlsx.ts) write such a Date as it is.
 */
export function wallClock(instant: Date, timeZone: string): Date {
  let format = wallClocks.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    wallClocks.set(timeZone, format);
  }
  const part = Object.fromEntries(format.formatToParts(instant).map((p) => [p.type, Number(p.value)]));
  return new Date(Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!));
}

/** The zone's offset from UTC at `at`, in milliseconds (positive east of Greenwich). */
function offsetMs(at: number, timeZone: string): number {
  return wallClock(new Date(at), timeZone).getTime() - Math.floor(at / 1000) * 1000;
}

const DAY_MS = 86_400_000;

/**
 * True when the wall-clock time `instant` shows in `timeZone` is also shown at another instant: the
 * hour the clocks go back (in Europe/Madrid, 02:00 to 02:59 on the last Sunday of October happen
 * twice, first in CEST, then in CET). The zone's offsets a day before and after are the candidates.
 */
function isAmbiguousWallTime(instant: Date, timeZone: string): boolean {
  const at = instant.getTime();
  const own = offsetMs(at, timeZone);
  for (const other of [offsetMs(at - DAY_MS, timeZone), offsetMs(at + DAY_MS, timeZone)]) {
    // The instant that shows the same wall-clock time under the other offset, if the zone has it then.
    if (other !== own && offsetMs(at + own - other, timeZone) === other) return true;
  }
  return false;
}

const zoneNames = new Map<string, Intl.DateTimeFormat>();

/** The zone's short name at `instant` in `locale` ("CET", "CEST"; "GMT-4" where the locale has no name). */
function zoneAbbreviation(instant: Date, timeZone: string, locale: string): string {
  const key = `${locale}|${timeZone}`;
  let format = zoneNames.get(key);
  if (!format) zoneNames.set(key, (format = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: 'short' })));
  return format.formatToParts(instant).find((p) => p.type === 'timeZoneName')?.value ?? timeZone;
}

/**
 * ` CEST` (the zone's short name after a space) when the wall-clock time of `instant` happens twice
 * in `timeZone`, else '': what a formatted time adds so that the two 02:30 of the night the clocks
 * go back are told apart.
 */
export function ambiguityMark(instant: Date, timeZone: string, locale: string): string {
  return isAmbiguousWallTime(instant, timeZone) ? ` ${zoneAbbreviation(instant, timeZone, locale)}` : '';
}

/**
 * The instant (ms) at which `timeZone`'s clocks show the wall-clock time `value` ("2031-05-01T18:00",
 * a datetime-local value or SQL's to_char of a bucket); null when it is not one. A time the clocks
 * skip takes the offset after the change.
 */
function wallInstant(value: string, timeZone: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(value);
  if (!m) return null;
  const wall = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!);
  // The offset at the guessed instant, then again at the result (the two differ across a DST change).
  const at = wall - offsetMs(wall, timeZone);
  return wall - offsetMs(at, timeZone);
}

/** A datetime-local value in `timeZone` as an ISO instant; null when empty or not a date and time. */
export function zonedToIso(value: string | null | undefined, timeZone: string): string | null {
  const at = value ? wallInstant(value, timeZone) : null;
  if (at === null) return value ? value : null;
  return new Date(at).toISOString();
}

/**
 * A wall-clock time of `timeZone` ("2026-12-07T05:00", as SQL's to_char writes a bucket) as ISO 8601
 * with the zone's offset then ("2026-12-07T05:00:00+01:00", D12): the local time as it reads, and
 * an exact instant.
 */
export function wallToIsoWithOffset(value: string, timeZone: string): string {
  const at = wallInstant(value, timeZone);
  if (at === null) return value;
  const offsetMinutes = Math.round(offsetMs(at, timeZone) / 60_000);
  const abs = Math.abs(offsetMinutes);
  const sign = offsetMinutes < 0 ? '-' : '+';
  return `${value}:00${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** An ISO instant as a datetime-local value in `timeZone` ('' for null). */
export function isoToZonedInput(iso: string | null | undefined, timeZone: string): string {
  if (!iso) return '';
  const at = new Date(iso).getTime();
  return new Date(at + offsetMs(at, timeZone)).toISOString().slice(0, 16);
}

/** The calendar day `days` after a `YYYY-MM-DD` day (calendar arithmetic: no zone, no DST). */
export function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

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

/** A datetime-local value in `timeZone` as an ISO instant; null when empty or not a date and time. */
export function zonedToIso(value: string | null | undefined, timeZone: string): string | null {
  const m = value ? /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(value) : null;
  if (!m) return value ? value : null;
  const wall = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!);
  // The offset at the guessed instant, then again at the result (the two differ across a DST change).
  let at = wall - offsetMs(wall, timeZone);
  at = wall - offsetMs(at, timeZone);
  return new Date(at).toISOString();
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

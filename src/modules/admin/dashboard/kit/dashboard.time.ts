// How the dashboard writes and reads times.

const zoneFormats = new Map<string, Intl.DateTimeFormat>();
/**
 * A short readable time in the deployment's zone, as the portal, the tickets and the e-mail write
 * it: "2026-12-24 20:00 CET" (sv-SE writes dates as YYYY-MM-DD).
 */
export const when = (iso: string | null, timeZone: string) => {
  if (!iso) return '';
  let f = zoneFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('sv-SE', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' });
    zoneFormats.set(timeZone, f);
  }
  return f.format(new Date(iso));
};

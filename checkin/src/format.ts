import { ambiguityMark } from '../../src/lib/zoned-time.js';

// Times the door staff read (last sync, first scan, conflicts), in the deployment's time zone as
// the rest of the service prints them (tickets, e-mails, portal), not the phone's: a phone set to
// another zone, or a visitor's phone, shows the venue's clock. The zone comes with GET /device
// (`time_zone`) and is kept with the device's set-up; until then, the phone's zone.

const formats = new Map<string, Intl.DateTimeFormat>();

/** A moment in `timeZone`, with the zone's abbreviation where its clocks show that time twice. */
export function formatMoment(iso: string, lang: string, timeZone: string | undefined): string {
  const key = `${lang}|${timeZone ?? ''}`;
  let format = formats.get(key);
  if (!format) formats.set(key, (format = new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'medium', timeZone })));
  const at = new Date(iso);
  return format.format(at) + (timeZone ? ambiguityMark(at, timeZone, lang) : '');
}

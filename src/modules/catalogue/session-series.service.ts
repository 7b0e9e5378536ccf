import type { AppContext } from '../../app-context.js';
import { AppError, invalidData } from '../../http/errors.js';
import { isoWithOffset } from '../../lib/time.js';
import { addDays, zonedToIso } from '../../lib/zoned-time.js';
import type { Actor } from '../../platform/actor.js';
import { queueSessionChanged } from '../queue/queue.service.js';
import * as repo from './catalogue-admin.repo.js';
import { insertSessionIn, sessionPatch, visibleEvent, visibleSession } from './catalogue-admin.service.js';
import { copyRatesIn } from './session-rates.service.js';

// Issue 29: a series of sessions made at once ("every Friday at 21:00 for 8 weeks"). The dates are
// calendar days in the deployment's time zone (TIMEZONE) at one wall-clock time, so that a weekly
// series keeps 21:00 across a change of summer time; the preview shows the same list that creation
// makes. All or nothing: one transaction; a start the event already has is skipped, so that a
// series sent twice adds nothing.

export const MAX_SERIES_SESSIONS = 100;

export interface SeriesInput {
  /** The first day, `YYYY-MM-DD`, in the deployment's zone. */
  start_date: string;
  /** The start time of every session, `HH:MM` (24 h), in the deployment's zone. */
  time: string;
  repeat: 'daily' | 'weekly';
  count: number;
  /** Each session ends this many minutes after its start; none: no end. */
  duration_minutes?: number | null;
  /** Each session gets a copy of this session's rates. */
  rates_from_session_id?: number | null;
}

export interface SeriesDate {
  start_datetime: string;
  end_datetime: string | null;
  /** The event has a session at this start already: it is left out. */
  exists: boolean;
}

function seriesDates(input: SeriesInput, timeZone: string) {
  const fields: Record<string, string[]> = {};
  // A day that exists: 2033-02-30 would come back from the calendar as another day.
  if (!/^\d{4}-\d{2}-\d{2}$/.test(input.start_date ?? '') || addDays(input.start_date, 0) !== input.start_date) fields.start_date = ['must be a day of the calendar (YYYY-MM-DD)'];
  const t = /^(\d{2}):(\d{2})$/.exec(input.time ?? '');
  if (!t || +t[1]! > 23 || +t[2]! > 59) fields.time = ['must be a time of day (HH:MM, 24 hours)'];
  if (input.repeat !== 'daily' && input.repeat !== 'weekly') fields.repeat = ['must be daily or weekly'];
  if (!Number.isInteger(input.count) || input.count < 1) fields.count = ['must be a whole number, at least 1'];
  else if (input.count > MAX_SERIES_SESSIONS) fields.count = [`at most ${MAX_SERIES_SESSIONS} sessions at once: make a longer series in several parts`];
  const d = input.duration_minutes;
  if (d != null && !(Number.isInteger(d) && d >= 1 && d <= 7 * 24 * 60)) fields.duration_minutes = ['must be a whole number of minutes, 1 to 10080 (a week)'];
  if (Object.keys(fields).length) throw invalidData(fields);
  const step = input.repeat === 'weekly' ? 7 : 1;
  return Array.from({ length: input.count }, (_, i) => {
    const start = new Date(zonedToIso(`${addDays(input.start_date, i * step)}T${input.time}`, timeZone)!);
    const end = d != null ? new Date(start.getTime() + d * 60_000) : null;
    return { start, end };
  });
}

/** The sessions a series would make, and which starts the event has already (the preview). */
export async function previewSeriesAs(ctx: AppContext, actor: Actor, eventId: number, input: SeriesInput): Promise<SeriesDate[]> {
  await visibleEvent(ctx.db, actor, eventId);
  const dates = seriesDates(input, ctx.config.timezone);
  const taken = new Set((await repo.sessionsOfEvent(ctx.db, eventId)).map((s) => s.startDatetime.getTime()));
  return dates.map(({ start, end }) => ({ start_datetime: isoWithOffset(start)!, end_datetime: isoWithOffset(end), exists: taken.has(start.getTime()) }));
}

/** Makes the series (drafts, each with the copied rates); answers every date with the new session's id. */
export async function createSeriesAs(ctx: AppContext, actor: Actor, eventId: number, input: SeriesInput) {
  const event = await visibleEvent(ctx.db, actor, eventId);
  const dates = seriesDates(input, ctx.config.timezone);
  const fromId = input.rates_from_session_id ?? null;
  const from =
    fromId === null
      ? null
      : await visibleSession(ctx.db, actor, fromId).catch(() => {
          throw invalidData({ rates_from_session_id: ['must be a session you may see'] });
        });
  const now = ctx.clock.now();
  const made = await ctx.db.transaction(async (tx) => {
    // Series of one event are made one at a time, so that the starts taken are read after the
    // other's commit: a series sent twice at once is made once.
    await repo.lockEvent(tx, eventId);
    const taken = new Set((await repo.sessionsOfEvent(tx, eventId)).map((s) => s.startDatetime.getTime()));
    const out: (SeriesDate & { id: number | null; rates: number })[] = [];
    for (const { start, end } of dates) {
      const row = { start_datetime: isoWithOffset(start)!, end_datetime: isoWithOffset(end) };
      if (taken.has(start.getTime())) {
        out.push({ ...row, exists: true, id: null, rates: 0 });
        continue;
      }
      const id = await insertSessionIn(ctx, tx, actor, event, sessionPatch({ start_datetime: row.start_datetime, end_datetime: row.end_datetime }, true), now);
      let rates = 0;
      if (from) {
        const copied = await copyRatesIn(
          tx,
          actor,
          { id: from.session.id, venueId: from.session.venueId, organiserId: from.organiserId },
          { id, venueId: event.venueId, organiserId: event.organiserId },
          now,
        ).catch((err: unknown) => {
          // Field errors of the copy are about this form's rates_from_session_id.
          if (err instanceof AppError && err.fields?.from_session_id) throw invalidData({ rates_from_session_id: err.fields.from_session_id });
          throw err;
        });
        rates = copied.added.length;
      }
      out.push({ ...row, exists: false, id, rates });
    }
    return out;
  });
  for (const s of made) if (s.id !== null) queueSessionChanged(ctx, s.id);
  return { sessions: made, created: made.filter((s) => s.id !== null).length, skipped: made.filter((s) => s.id === null).length };
}

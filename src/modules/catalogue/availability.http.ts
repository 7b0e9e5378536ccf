import { Type } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { appSingleton, type AppContext } from '../../app-context.js';
import type { ChannelRecord } from '../../db/channel-record.js';
import { Envelope } from '../../http/schemas.js';
import { sessionReadingLayout } from './catalogue.service.js';
import type { ReadingLayout } from './layout-reading.js';
import { cursorOfTag, followAvailability, getAvailability, type AvailabilityBody } from './availability.service.js';

// The HTTP side of live seat maps (D62), shared by the B2B route and its portal twin: a poll
// (ETag / If-None-Match, or ?since=<cursor>) or a Server-Sent Events stream (Accept: text/event-stream).

export const AvailabilityQuery = Type.Object(
  {
    since: Type.Optional(Type.String({ maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'The `cursor` of the last answer: only what changed since is sent' })),
    form: Type.Optional(
      Type.Union([Type.Literal('changes'), Type.Literal('ids'), Type.Literal('index')], {
        description:
          '`changes` (the default): the seats as `changes[]`, one object per seat. `ids`: the same seats as `seats_by_status`, four arrays of ids ' +
          '(about a sixth of the bytes of a large snapshot, and cheaper to parse). `index`: the same seats as `index_by_status`, four arrays of ' +
          'their positions in the session layout\'s columns (`.../layout`) of version `layout`, so that a client draws them without looking ids up',
      }),
    ),
  },
  { additionalProperties: false },
);

const SEAT_STATUSES = ['available', 'held', 'sold', 'blocked'] as const;
const SeatStatus = Type.Union(SEAT_STATUSES.map((s) => Type.Literal(s)));
const SeatIds = Type.Array(Type.Integer());

const AvailabilityData = Type.Object({
  session_id: Type.Integer(),
  cursor: Type.String({ description: 'Names this version: send it back as `since` (or the ETag as If-None-Match)' }),
  snapshot: Type.Boolean({ description: 'true: `changes` lists every seat that is not available (any other seat is); false: only the seats whose status changed since `since`' }),
  changes: Type.Optional(Type.Array(Type.Object({ session_seat_id: Type.Integer(), status: SeatStatus }), { description: 'The seats (the default form)' })),
  seats_by_status: Type.Optional(
    Type.Object(
      { available: SeatIds, held: SeatIds, sold: SeatIds, blocked: SeatIds },
      { description: 'With `form=ids`, instead of `changes`: the same seats, their ids under their status (a snapshot has no `available` ids)' },
    ),
  ),
  index_by_status: Type.Optional(
    Type.Object(
      { available: SeatIds, held: SeatIds, sold: SeatIds, blocked: SeatIds },
      { description: 'With `form=index`, instead of `changes`: the same seats as their indices `i` in the columns of the session layout (`seats.id[i]`) named by `layout`' },
    ),
  ),
  layout: Type.Optional(Type.String({ description: 'With `form=index`: the `version` of the session layout whose columns `index_by_status` indexes; another version than the one held means the layout must be read again' })),
  zones: Type.Array(Type.Object({ sector_id: Type.Integer(), available: Type.Integer({ description: 'Free places of the sector now' }) })),
  sale_state: Type.Union(['scheduled', 'on_sale', 'ended', 'sold_out'].map((s) => Type.Literal(s))),
  sales_start_at: Type.Union([Type.String(), Type.Null()]),
  sales_end_at: Type.Union([Type.String(), Type.Null()]),
});

export const AvailabilityResponse = Envelope(AvailabilityData);

export const AVAILABILITY_DESCRIPTION =
  'Live seat map (D62), served from memory. Poll with If-None-Match (304 while nothing changed) or `?since=<cursor>`: the answer holds only the seats ' +
  'whose status changed since that version; without either, or with a version this instance no longer knows, a snapshot (every seat that is not ' +
  'available). With `Accept: text/event-stream` the same bodies arrive as Server-Sent Events (`event: availability`, `id:` the ETag; ' +
  'a reconnect sends Last-Event-ID and gets what it missed). `form=ids` lists the same seats as ids under their status (`seats_by_status`), ' +
  'a fraction of the bytes of a large snapshot; `form=index` as their positions in the session layout\'s columns (`index_by_status`, `layout`). docs/catalogue.md "Live seat maps".';

/** Heartbeat comment of a stream, so that proxies keep an idle stream open. */
const HEARTBEAT_MS = 15_000;

/** The open streams of an app, ended when it closes (an open stream would hold the close up). */
const openStreams = appSingleton('catalogue.availability-streams', () => new Set<() => void>());

export function endAvailabilityStreams(ctx: AppContext): void {
  for (const end of [...openStreams(ctx)]) end();
}

const wantsStream = (request: FastifyRequest) => /\btext\/event-stream\b/.test(request.headers.accept ?? '');

/** Answers the availability route: 304, a JSON body, or a stream. */
export async function answerAvailability(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  channel: ChannelRecord,
  ids: { eventId: number; sessionId: number; since: string | undefined; form?: 'changes' | 'ids' | 'index' },
) {
  const availability = await getAvailability(ctx, channel, ids.eventId, ids.sessionId);
  const reading = ids.form === 'index' ? (await sessionReadingLayout(ctx, ids.sessionId)).reading : null;
  const ifNoneMatch = request.headers['if-none-match'];
  const since = ids.since ?? cursorOfTag(request.headers['last-event-id'] as string | undefined) ?? cursorOfTag(ifNoneMatch);
  const shape = reading ? byIndex(reading) : ids.form === 'ids' ? byStatus : (body: AvailabilityBody) => body;
  if (wantsStream(request)) return stream(ctx, request, reply, availability, since, shape);
  reply.header('etag', availability.etag).header('cache-control', 'private, no-cache');
  if (!ids.since && ifNoneMatch && ifNoneMatch.split(',').some((t) => t.trim() === availability.etag || t.trim() === availability.etag.slice(2))) {
    return reply.status(304).send();
  }
  return { status: 200, success: true, data: shape(availability.body(since)), message: 'Availability' };
}

/** The seats of `changes` under their status, each named by `nameOf` (a seat it names no way is left out). */
function groupByStatus(changes: AvailabilityBody['changes'], nameOf: (seatId: number) => number | undefined) {
  const seats: Record<(typeof SEAT_STATUSES)[number], number[]> = { available: [], held: [], sold: [], blocked: [] };
  for (const c of changes) {
    const name = nameOf(c.session_seat_id);
    if (name !== undefined) seats[c.status].push(name);
  }
  return seats;
}

/** The `ids` form of an answer: `changes` as `seats_by_status`, the ids of the seats of each status. */
function byStatus({ changes, ...rest }: AvailabilityBody) {
  return { ...rest, seats_by_status: groupByStatus(changes, (id) => id) };
}

/** The `index` form of an answer: `changes` as `index_by_status`, each seat's position in the reading layout (seats it does not have are left out). */
const byIndex =
  (reading: ReadingLayout) =>
  ({ changes, ...rest }: AvailabilityBody) => ({ ...rest, layout: reading.version, index_by_status: groupByStatus(changes, (id) => reading.indexOf.get(id)) });

function stream(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  first: Awaited<ReturnType<typeof getAvailability>>,
  since: string | undefined,
  shape: (body: AvailabilityBody) => object,
) {
  reply.hijack();
  const raw = reply.raw;
  // Headers set so far (CORS) go out with the stream's own.
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // nginx and similar proxies would otherwise buffer the stream.
    'x-accel-buffering': 'no',
  });
  raw.write('retry: 2000\n\n');
  const send = (etag: string, body: AvailabilityBody) => raw.write(`event: availability\nid: ${etag}\ndata: ${JSON.stringify(shape(body))}\n\n`);
  const unfollow = followAvailability(ctx, first, since, send);
  const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  const streams = openStreams(ctx);
  const end = () => {
    if (!streams.delete(end)) return;
    clearInterval(heartbeat);
    unfollow();
    raw.end();
  };
  streams.add(end);
  request.raw.on('close', end);
  raw.on('error', end);
}

import { Type } from '@fastify/type-provider-typebox';
import { Envelope, IdParam, Nullable, Text } from '../../http/schemas.js';
import { QUEUE_LIMITS } from './queue.service.js';

/** A session's waiting-room settings in the admin API (D60): any subset on update, merged over the current ones. */
export const QueueSettingsInput = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    admission_per_minute: Type.Optional(
      Type.Integer({ format: 'int32', minimum: QUEUE_LIMITS.admission_per_minute[0], maximum: QUEUE_LIMITS.admission_per_minute[1], description: 'buyers admitted per minute, spread evenly over the minute (required the first time)' }),
    ),
    pass_ttl_seconds: Type.Optional(Type.Integer({ format: 'int32', minimum: QUEUE_LIMITS.pass_ttl_seconds[0], maximum: QUEUE_LIMITS.pass_ttl_seconds[1], description: 'how long an admitted buyer may start carts; default 600' })),
    opens_minutes_before: Type.Optional(
      Type.Integer({ format: 'int32', minimum: QUEUE_LIMITS.opens_minutes_before[0], maximum: QUEUE_LIMITS.opens_minutes_before[1], description: 'the pre-queue opens this long before sales_start_at; default 30' }),
    ),
    challenge: Type.Optional(Type.Union([Type.Literal('none'), Type.Literal('proof_of_work')], { description: 'proof of work at join (ALTCHA); default none' })),
  },
  { additionalProperties: false, description: 'waiting room (D60); null removes it. Needs sales_start_at: the pre-queue is drawn then' },
);

export const QueueSettingsView = Type.Object({
  enabled: Type.Boolean(),
  admission_per_minute: Type.Integer(),
  pass_ttl_seconds: Type.Integer(),
  opens_minutes_before: Type.Integer(),
  challenge: Type.String(),
});

export const QueueParams = Type.Object({ sessionId: IdParam });

const State = Type.Union(['closed', 'pre_queue', 'drawing', 'admitting', 'ended'].map((s) => Type.Literal(s)));

export const QueueStatusQuery = Type.Object({
  ticket_id: Type.Optional(
    Text(40, {
      minLength: 1,
      pattern: '^[A-Za-z0-9]+$',
      description: 'a ticket id (the join\'s `ticket_id`): the answer adds that ticket\'s `number`, so that a buyer who joined the pre-queue learns it on its next poll after the draw',
    }),
  ),
});

export const QueueStatusResponse = Envelope(
  Type.Object({
    session_id: Type.Integer(),
    state: State,
    sales_start_at: Nullable(Type.String({ format: 'date-time' })),
    opens_at: Nullable(Type.String({ format: 'date-time', description: 'when the pre-queue opens' })),
    admitted_through: Type.Integer({ description: 'every number up to this one may ask for its pass' }),
    queue_length: Type.Integer({ description: 'the pre-queue before the draw; the numbers not yet admitted after it' }),
    admission_per_minute: Nullable(Type.Integer()),
    pass_ttl_seconds: Nullable(Type.Integer()),
    challenge: Nullable(Type.String()),
    seed_sha256: Nullable(Type.String({ description: 'SHA-256 of the draw\'s seed, published before the draw' })),
    seed: Nullable(Type.String({ description: 'the draw\'s seed, once drawn' })),
    server_time: Type.String({ format: 'date-time', description: 'the service\'s clock, for countdowns' }),
    number: Type.Optional(Nullable(Type.Integer({ description: 'only when the poll names a `ticket_id`: its number once drawn (`state` admitting), else null' }))),
  }),
);

export const JoinBody = Type.Object(
  {
    client_id: Type.Optional(
      Text(64, {
        minLength: 1,
        pattern: '^[A-Za-z0-9_-]+$',
        description: 'the buyer\'s client id: the widget\'s D38 id. Left out by the portal\'s own pages: their buyer cookie names the client',
      }),
    ),
    challenge_solution: Type.Optional(Text(8192, { description: 'the solved proof-of-work challenge (ALTCHA payload, base64 JSON), when the queue asks for one' })),
  },
  { additionalProperties: false },
);

export const JoinResponse = Envelope(
  Type.Object({
    ticket: Type.String({ description: 'signed, bound to the session and the client' }),
    ticket_id: Type.String(),
    number: Nullable(Type.Integer({ description: 'null in the pre-queue, until the draw' })),
    state: State,
  }),
);

export const PassBody = Type.Object({ ticket: Text(2048, { minLength: 1 }) }, { additionalProperties: false });

export const PassResponse = Envelope(
  Type.Object({
    pass: Type.String({ description: 'send it as the Queue-Pass header when creating a cart' }),
    expires_at: Type.String({ format: 'date-time' }),
    number: Type.Integer(),
  }),
);

export const DrawResponse = Envelope(
  Type.Object({
    session_id: Type.Integer(),
    algorithm: Type.String({ description: 'docs/onsale.md "Checking the draw"' }),
    seed: Type.String(),
    seed_sha256: Type.String(),
    ticket_ids: Type.Array(Type.String(), { description: 'the pre-queue in drawn order: the first has number 1' }),
  }),
);

export const ChallengeResponse = Envelope(
  Type.Object(
    { parameters: Type.Object({}, { additionalProperties: true }), signature: Type.Optional(Type.String()) },
    { description: 'an ALTCHA challenge (altcha-lib v2): solve it and send the payload as challenge_solution' },
  ),
);

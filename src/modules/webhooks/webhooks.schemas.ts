import { Type } from '@fastify/type-provider-typebox';
import { pageQuery } from '../../http/admin-api.js';
import { IdParam, Int32, Nullable, Text, Timestamp } from '../../http/schemas.js';
import { httpUrlSchema } from '../../lib/url-rules.js';
import { WEBHOOK_EVENT_TYPES } from './webhooks.outbox.js';

// TypeBox schemas of the webhook endpoints in the admin API (D51, docs/webhooks.md).

const [T1, T2, T3, T4, T5, T6, T7, T8] = WEBHOOK_EVENT_TYPES;
const EventType = Type.Union([
  Type.Literal(T1),
  Type.Literal(T2),
  Type.Literal(T3),
  Type.Literal(T4),
  Type.Literal(T5),
  Type.Literal(T6),
  Type.Literal(T7),
  Type.Literal(T8),
]);
const EventTypes = Type.Array(EventType, { minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true });

export const WebhookParams = {
  endpoint: Type.Object({ channelId: IdParam, endpointId: IdParam }),
  delivery: Type.Object({ channelId: IdParam, endpointId: IdParam, deliveryId: IdParam }),
};

export const WebhookEndpointCreate = Type.Object(
  {
    url: httpUrlSchema('where events are POSTed'),
    event_types: EventTypes,
    description: Type.Optional(Text(200)),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const WebhookEndpointUpdate = Type.Partial(WebhookEndpointCreate, { additionalProperties: false, minProperties: 1 });

export const WebhookEndpoint = Type.Object({
  id: IdParam,
  channel_id: IdParam,
  url: Text(2000),
  description: Text(200),
  event_types: EventTypes,
  enabled: Type.Boolean(),
  disabled_reason: Nullable(Type.Union([Type.Literal('manual'), Type.Literal('gone')], { description: 'gone: the endpoint answered 410 Gone' })),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const WebhookEndpointWithSecret = Type.Intersect([
  WebhookEndpoint,
  Type.Object({ secret: Text(100, { description: 'whsec_<base64>: the signing secret, shown only in this answer' }) }),
]);

const Attempt = Type.Object({
  attempted_at: Timestamp,
  status_code: Nullable(Int32({ minimum: 100, maximum: 599 })),
  duration_ms: Int32({ minimum: 0 }),
  response_excerpt: Nullable(Text(1024, { description: 'the first KB of the answer body' })),
  error: Nullable(Text(500, { description: 'why no answer came (timeout, connection refused, ...)' })),
  manual: Type.Boolean({ description: 'a redelivery by hand' }),
});

export const WebhookDelivery = Type.Object({
  id: Type.Integer({ format: 'int64', minimum: 1 }),
  webhook_id: Text(100, { description: 'the webhook-id header: the same on every attempt; dedupe on it' }),
  type: EventType,
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  created_at: Timestamp,
  next_attempt_at: Nullable(Timestamp),
  attempts: Type.Array(Attempt),
});

export const WebhookAttemptResult = Type.Object({
  status_code: Attempt.properties.status_code,
  duration_ms: Attempt.properties.duration_ms,
  response_excerpt: Attempt.properties.response_excerpt,
  error: Attempt.properties.error,
  delivered: Type.Boolean(),
});

export const DeliveriesQuery = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')])),
    ...pageQuery,
  },
  { additionalProperties: false },
);

import type { AppContext } from '../../app-context.js';
import { AppError, invalidData } from '../../http/errors.js';
import { generateWebhookSecret, sealSecret } from '../../lib/secrets.js';
import { isoWithOffset } from '../../lib/time.js';
import { urlProblem } from '../../lib/url-rules.js';
import type { Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import { getChannelFor } from '../channels/channels-admin.service.js';
import { redeliver } from './webhooks.delivery.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhooks.outbox.js';
import * as repo from './webhooks.repo.js';

// Back-office use cases on a channel's webhook endpoints (D51): the admin API and the dashboard
// call these with the acting user; another organiser's channel or endpoint is a 404.

/** How long a rotated-out secret keeps signing beside the new one. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
const MAX_DESCRIPTION = 200;

export interface EndpointInput {
  url?: string;
  event_types?: string[];
  description?: string;
  enabled?: boolean;
}

function endpointView(e: repo.EndpointRow) {
  return {
    id: e.id,
    channel_id: e.channelId,
    url: e.url,
    description: e.description,
    event_types: e.eventTypes as WebhookEventType[],
    enabled: e.enabled,
    disabled_reason: e.disabledReason as 'manual' | 'gone' | null,
    created_at: isoWithOffset(e.createdAt)!,
    updated_at: isoWithOffset(e.updatedAt)!,
  };
}
export type EndpointView = ReturnType<typeof endpointView>;

/** Field errors of a create or edit (the dashboard's forms do not go through JSON schemas). */
function validate(ctx: AppContext, input: EndpointInput, creating: boolean): void {
  const f: Record<string, string[]> = {};
  if (creating || input.url !== undefined) {
    const problem = input.url ? urlProblem(input.url, ctx.config.appEnv) : 'is required';
    if (problem) f.url = [problem];
  }
  if (creating || input.event_types !== undefined) {
    const types = input.event_types ?? [];
    if (types.length === 0) f.event_types = ['must name at least one event type'];
    else if (types.some((t) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t))) f.event_types = [`must be among ${WEBHOOK_EVENT_TYPES.join(', ')}`];
  }
  if (input.description !== undefined && input.description.length > MAX_DESCRIPTION) f.description = [`must have at most ${MAX_DESCRIPTION} characters`];
  if (Object.keys(f).length) throw invalidData(f);
}

/** The endpoint if it belongs to the channel and the actor may see the channel; otherwise 404. */
async function visibleEndpoint(ctx: AppContext, actor: Actor, channelId: number, endpointId: number) {
  const channel = await getChannelFor(ctx, actor, channelId);
  const endpoint = await repo.findEndpoint(ctx.db, endpointId);
  if (!endpoint || endpoint.channelId !== channelId) throw new AppError('not_found', 'Webhook endpoint not found');
  return { channel, endpoint };
}

export async function listEndpointsFor(ctx: AppContext, actor: Actor, channelId: number): Promise<EndpointView[]> {
  await getChannelFor(ctx, actor, channelId);
  return (await repo.listEndpoints(ctx.db, channelId)).map(endpointView);
}

export async function getEndpointFor(ctx: AppContext, actor: Actor, channelId: number, endpointId: number): Promise<EndpointView> {
  return endpointView((await visibleEndpoint(ctx, actor, channelId, endpointId)).endpoint);
}

/** Registers an endpoint; the answer carries its signing secret, which is never shown again. */
export async function createEndpointAs(ctx: AppContext, actor: Actor, channelId: number, input: EndpointInput): Promise<EndpointView & { secret: string }> {
  const channel = await getChannelFor(ctx, actor, channelId);
  validate(ctx, input, true);
  const now = ctx.clock.now();
  const secret = generateWebhookSecret();
  return ctx.db.transaction(async (tx) => {
    const endpoint = await repo.insertEndpoint(tx, {
      channelId,
      url: input.url!,
      description: input.description?.trim() ?? '',
      eventTypes: [...new Set(input.event_types!)],
      secretSealed: sealSecret(secret, ctx.config.signingSecret),
      enabled: input.enabled ?? true,
      disabledReason: input.enabled === false ? 'manual' : null,
      createdAt: now,
      updatedAt: now,
    });
    await recordAudit(tx, { actor, action: 'webhook.create', targetType: 'webhook_endpoint', targetId: endpoint.id, organiserId: channel.organiser_id, details: { channel_id: channelId, url: endpoint.url }, at: now });
    return { ...endpointView(endpoint), secret };
  });
}

/** Edits URL, event types, description, or enables / disables it (re-enabling resumes its pending deliveries). */
export async function updateEndpointAs(ctx: AppContext, actor: Actor, channelId: number, endpointId: number, input: EndpointInput): Promise<EndpointView> {
  const { channel, endpoint } = await visibleEndpoint(ctx, actor, channelId, endpointId);
  validate(ctx, input, false);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const updated = await repo.updateEndpoint(tx, endpoint.id, {
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.event_types !== undefined ? { eventTypes: [...new Set(input.event_types)] } : {}),
      ...(input.description !== undefined ? { description: input.description.trim() } : {}),
      ...(input.enabled !== undefined && input.enabled !== endpoint.enabled ? { enabled: input.enabled, disabledReason: input.enabled ? null : 'manual' } : {}),
      updatedAt: now,
    });
    await recordAudit(tx, { actor, action: 'webhook.update', targetType: 'webhook_endpoint', targetId: endpoint.id, organiserId: channel.organiser_id, details: { ...input }, at: now });
    return endpointView(updated);
  });
}

/**
 * A new signing secret, shown once. The previous one keeps signing beside it for 24 hours
 * (webhook-signature carries both), so that the receiver can switch without losing an event.
 */
export async function rotateSecretAs(ctx: AppContext, actor: Actor, channelId: number, endpointId: number): Promise<EndpointView & { secret: string }> {
  const { channel, endpoint } = await visibleEndpoint(ctx, actor, channelId, endpointId);
  const now = ctx.clock.now();
  const secret = generateWebhookSecret();
  return ctx.db.transaction(async (tx) => {
    const updated = await repo.updateEndpoint(tx, endpoint.id, {
      secretSealed: sealSecret(secret, ctx.config.signingSecret),
      previousSecretSealed: endpoint.secretSealed,
      previousUntil: new Date(now.getTime() + ROTATION_OVERLAP_MS),
      updatedAt: now,
    });
    await recordAudit(tx, { actor, action: 'webhook.rotate_secret', targetType: 'webhook_endpoint', targetId: endpoint.id, organiserId: channel.organiser_id, at: now });
    return { ...endpointView(updated), secret };
  });
}

/** Deletes the endpoint with its deliveries and their log. */
export async function deleteEndpointAs(ctx: AppContext, actor: Actor, channelId: number, endpointId: number): Promise<void> {
  const { channel, endpoint } = await visibleEndpoint(ctx, actor, channelId, endpointId);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await repo.deleteEndpoint(tx, endpoint.id);
    await recordAudit(tx, { actor, action: 'webhook.delete', targetType: 'webhook_endpoint', targetId: endpoint.id, organiserId: channel.organiser_id, details: { url: endpoint.url }, at: now });
  });
}

export interface DeliveryQuery {
  status?: 'pending' | 'delivered' | 'failed';
  beforeId?: number;
  limit?: number;
}

/** The endpoint's deliveries, newest first, each with its attempts (oldest first). */
export async function listDeliveriesFor(ctx: AppContext, actor: Actor, channelId: number, endpointId: number, q: DeliveryQuery = {}) {
  const { endpoint } = await visibleEndpoint(ctx, actor, channelId, endpointId);
  const deliveries = await repo.listDeliveries(ctx.db, endpoint.id, { status: q.status, beforeId: q.beforeId, limit: q.limit ?? 50 });
  const attempts = await repo.attemptsOf(ctx.db, deliveries.map((d) => d.id));
  return deliveries.map((d) => ({
    id: d.id,
    webhook_id: d.messageId,
    type: d.type as WebhookEventType,
    status: d.status,
    created_at: isoWithOffset(d.createdAt)!,
    next_attempt_at: d.status === 'pending' ? isoWithOffset(d.nextAttemptAt) : null,
    attempts: attempts
      .filter((a) => a.deliveryId === d.id)
      .map((a) => ({
        attempted_at: isoWithOffset(a.attemptedAt)!,
        status_code: a.statusCode,
        duration_ms: a.durationMs,
        response_excerpt: a.responseExcerpt,
        error: a.error,
        manual: a.manual,
      })),
  }));
}
export type DeliveryView = Awaited<ReturnType<typeof listDeliveriesFor>>[number];

/** Sends one delivery again now, by hand, with the same webhook-id and body (the attempt is logged). */
export async function redeliverAs(ctx: AppContext, actor: Actor, channelId: number, endpointId: number, deliveryId: number) {
  const { endpoint } = await visibleEndpoint(ctx, actor, channelId, endpointId);
  const job = await repo.findDeliveryJob(ctx.db, deliveryId);
  if (!job || job.endpoint_id !== endpoint.id) throw new AppError('not_found', 'Webhook delivery not found');
  const a = await redeliver(ctx, job);
  return { status_code: a.statusCode, duration_ms: a.durationMs, response_excerpt: a.responseExcerpt, error: a.error, delivered: a.delivered };
}

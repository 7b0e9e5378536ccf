import { Value } from 'typebox/value';
import { ChannelSlug } from '../../http/schemas.js';
import type { AppContext } from '../../app-context.js';
import type { AppEnv } from '../../config.js';
import { INTEGRATION_MODES, type Branding, type IntegrationMode } from '../../db/schema/index.js';
import { AppError, invalidData, notFound } from '../../http/errors.js';
import { isoWithOffset } from '../../lib/time.js';
import { canSee, conflictOnDuplicate, organiserForNew, organiserScope, type Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import { needsCheckoutUrl, type CredentialScope } from '../../lib/integration-policy.js';
import { announceRevocation, findChannelKey, generateChannelKey, listChannelKeys, revokeChannelKey, revokeChannelTokensIn } from '../auth/auth.service.js';
import * as repo from './channels.repo.js';
import * as adminRepo from './channels-admin.repo.js';
import { urlProblem } from '../../lib/url-rules.js';
import { brandingProblems, createChannel, LANGUAGES } from './channels.service.js';
import type { ChannelRecord } from '../../db/channel-record.js';

// Back-office use cases on sales channels and their widget keys (issue 8). Every function takes
// the acting user: a promoter reaches only its organiser's channels; another's id is a 404.

export interface ChannelInput {
  organiser_id?: number | null;
  slug?: string;
  name?: string;
  integration_mode?: IntegrationMode;
  checkout_url?: string | null;
  /** The partner's own site, linked from the portal's pages (issue 16). */
  website_url?: string | null;
  branding?: Branding;
  cart_ttl_seconds?: number | null;
  default_lang?: string;
  event_ids?: number[];
}

/** Branding without empty values (an empty form field means "use the default"). */
const cleanBranding = (b: Branding): Branding =>
  Object.fromEntries(Object.entries(b).filter(([, v]) => typeof v === 'string' && v.trim() !== '').map(([k, v]) => [k, (v as string).trim()]));

/** Field errors of a channel create or edit (the dashboard's forms do not go through JSON schemas). */
function validate(input: ChannelInput, creating: boolean, appEnv: AppEnv): void {
  const f: Record<string, string[]> = {};
  const add = (field: string, text: string) => (f[field] ??= []).push(text);
  if (creating || input.slug !== undefined) if (!input.slug || !Value.Check(ChannelSlug, input.slug)) add('slug', 'must be 1-63 of a-z, 0-9 and -, starting with a letter or digit');
  if (creating || input.name !== undefined) if (!input.name?.trim() || input.name.length > 200) add('name', 'must have 1 to 200 characters');
  if (creating || input.integration_mode !== undefined)
    if (!INTEGRATION_MODES.includes(input.integration_mode!)) add('integration_mode', `must be one of ${INTEGRATION_MODES.join(', ')}`);
  const checkoutProblem = input.checkout_url ? urlProblem(input.checkout_url, appEnv) : null;
  if (checkoutProblem) add('checkout_url', checkoutProblem);
  const websiteProblem = input.website_url ? urlProblem(input.website_url, appEnv) : null;
  if (websiteProblem) add('website_url', websiteProblem);
  if (input.cart_ttl_seconds != null && (!Number.isInteger(input.cart_ttl_seconds) || input.cart_ttl_seconds < 60 || input.cart_ttl_seconds > 86_400))
    add('cart_ttl_seconds', 'must be a whole number of seconds from 60 to 86400');
  if (input.default_lang !== undefined && !(LANGUAGES as readonly string[]).includes(input.default_lang))
    add('default_lang', `must be one of ${LANGUAGES.join(', ')}`);
  for (const [field, texts] of Object.entries(brandingProblems(cleanBranding(input.branding ?? {}), appEnv))) texts.forEach((text) => add(field, text));
  if (Object.keys(f).length) throw invalidData(f);
}


function channelView(c: ChannelRecord, eventIds: number[]) {
  return {
    id: c.id,
    organiser_id: c.organiserId,
    slug: c.slug,
    name: c.name,
    integration_mode: c.integrationMode,
    checkout_url: c.checkoutUrl,
    website_url: c.websiteUrl,
    branding: c.branding as Record<string, string>,
    cart_ttl_seconds: c.cartTtlSeconds,
    default_lang: c.defaultLang,
    event_ids: eventIds,
  };
}
export type ChannelView = ReturnType<typeof channelView>;

/** The channel if the actor may see it; otherwise 404. */
async function visibleChannel(ctx: AppContext, actor: Actor, id: number): Promise<ChannelRecord> {
  const channel = await repo.findChannelById(ctx.db, id);
  if (!channel || !canSee(actor, channel.organiserId)) throw new AppError('not_found', 'Sales channel not found');
  return channel;
}

async function checkEvents(ctx: AppContext, organiserId: number, eventIds: number[]): Promise<number[]> {
  const unique = [...new Set(eventIds)];
  const own = await adminRepo.eventsOfOrganiser(ctx.db, organiserId, unique);
  if (own.length !== unique.length) {
    throw invalidData({ event_ids: ['must be events of the channel\'s organiser'] });
  }
  return unique.sort((a, b) => a - b);
}

/** Channels the actor may see, by slug. */
export async function listChannelsFor(ctx: AppContext, actor: Actor): Promise<ChannelRecord[]> {
  const scope = organiserScope(actor);
  const all = await repo.listChannels(ctx.db);
  return scope === null ? all : all.filter((c) => c.organiserId === scope);
}

/** Channels the actor may see with the events each sells (the admin API's list). */
export async function listChannelViewsFor(ctx: AppContext, actor: Actor): Promise<ChannelView[]> {
  const list = await listChannelsFor(ctx, actor);
  const events = await adminRepo.eventIdsByChannel(ctx.db, list.map((c) => c.id));
  return list.map((c) => channelView(c, events.get(c.id) ?? []));
}

export async function getChannelFor(ctx: AppContext, actor: Actor, id: number): Promise<ChannelView> {
  const channel = await visibleChannel(ctx, actor, id);
  return channelView(channel, await adminRepo.channelEventIds(ctx.db, id));
}

/** Creates a channel for the actor's organiser (an admin names the organiser). */
export async function createChannelAs(ctx: AppContext, actor: Actor, input: ChannelInput): Promise<ChannelView> {
  validate(input, true, ctx.config.appEnv);
  const organiserId = organiserForNew(actor, input.organiser_id);
  const eventIds = await checkEvents(ctx, organiserId, input.event_ids ?? []);
  const now = ctx.clock.now();
  // The slug is checked first; the unique index settles a race between two creations.
  return conflictOnDuplicate(() => new AppError('conflict.channel_slug_taken', { slug: input.slug }), () => ctx.db.transaction(async (tx) => {
    const channel = await createChannel(
      { ...ctx, db: tx },
      {
        organiserId,
        slug: input.slug!,
        name: input.name!.trim(),
        integrationMode: input.integration_mode!,
        checkoutUrl: input.checkout_url || null,
        websiteUrl: input.website_url || null,
        branding: cleanBranding(input.branding ?? {}),
        cartTtlSeconds: input.cart_ttl_seconds ?? null,
        defaultLang: input.default_lang ?? 'es',
      },
    );
    await adminRepo.replaceChannelEvents(tx, channel.id, eventIds);
    await recordAudit(tx, {
      actor,
      action: 'channel.create',
      targetType: 'sales_channel',
      targetId: channel.id,
      organiserId,
      details: { slug: channel.slug, integration_mode: channel.integrationMode },
      at: now,
    });
    return channelView(channel, eventIds);
  }));
}

/** Edits a channel: mode, checkout URL, branding, cart lifetime, name, language, events sold. */
export async function updateChannelAs(ctx: AppContext, actor: Actor, id: number, input: Omit<ChannelInput, 'slug' | 'organiser_id'>): Promise<ChannelView> {
  const before = await visibleChannel(ctx, actor, id);
  validate(input, false, ctx.config.appEnv);
  const patch: Partial<repo.NewChannel> = {};
  if (input.name !== undefined) patch.name = input.name.trim();
  if (input.integration_mode !== undefined) patch.integrationMode = input.integration_mode;
  if (input.checkout_url !== undefined) patch.checkoutUrl = input.checkout_url || null;
  if (input.website_url !== undefined) patch.websiteUrl = input.website_url || null;
  if (input.branding !== undefined) patch.branding = cleanBranding(input.branding);
  if (input.cart_ttl_seconds !== undefined) patch.cartTtlSeconds = input.cart_ttl_seconds;
  if (input.default_lang !== undefined) patch.defaultLang = input.default_lang;
  const mode = patch.integrationMode ?? before.integrationMode;
  const checkoutUrl = patch.checkoutUrl !== undefined ? patch.checkoutUrl : before.checkoutUrl;
  if (needsCheckoutUrl(mode) && !checkoutUrl) {
    throw invalidData({ checkout_url: ['is required for portal_external_payment (model B)'] });
  }
  const eventIds = input.event_ids !== undefined ? await checkEvents(ctx, before.organiserId, input.event_ids) : undefined;

  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const [key, to] of Object.entries(patch)) {
    const from = before[key as keyof ChannelRecord];
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[key] = { from, to };
  }
  const now = ctx.clock.now();
  const view = await ctx.db.transaction(async (tx) => {
    if (Object.keys(patch).length) await adminRepo.updateChannelRow(tx, id, patch, now);
    if (eventIds) {
      const previous = await adminRepo.channelEventIds(tx, id);
      await adminRepo.replaceChannelEvents(tx, id, eventIds);
      if (JSON.stringify(previous) !== JSON.stringify(eventIds)) changes.eventIds = { from: previous, to: eventIds };
    }
    const audit = { actor, targetType: 'sales_channel', targetId: id, organiserId: before.organiserId, at: now };
    if (changes.integrationMode) {
      // D42/D74: a mode change revokes the channel's tokens (both scopes): old tokens answer 401
      // invalid_token, never the 403 of the new mode's rules; the channel takes new ones.
      await revokeChannelTokensIn(tx, id, now);
      await recordAudit(tx, { ...audit, action: 'channel.mode_change', details: { slug: before.slug, ...changes.integrationMode } });
    }
    if (Object.keys(changes).length) await recordAudit(tx, { ...audit, action: 'channel.update', details: { slug: before.slug, changes } });
    // Cached tokens carry the channel record: every instance drops them so the new mode applies at once (D42).
    await announceRevocation(ctx, tx, { channelIds: [id] });
    const after = (await repo.findChannelById(tx, id))!;
    return channelView(after, await adminRepo.channelEventIds(tx, id));
  });
  return view;
}

function keyView(k: { id: number; lastFour: string; createdAt: Date; revokedAt: Date | null }) {
  return { id: k.id, last_four: k.lastFour, created_at: isoWithOffset(k.createdAt)!, revoked_at: isoWithOffset(k.revokedAt) };
}

const KEY_NAMES: Record<CredentialScope, string> = { widget: 'Widget key', server: 'Server key' };

/** The channel's keys of one kind (widget keys, or server keys: D39), oldest first: creation date and last four characters only. */
export async function listKeysFor(ctx: AppContext, actor: Actor, channelId: number, scope: CredentialScope = 'widget') {
  await visibleChannel(ctx, actor, channelId);
  return (await listChannelKeys(ctx, scope, channelId)).map(keyView);
}

/** Generates a key of either kind, audited; the plain key is returned once and never stored (D7, D39). */
async function generateAuditedKey(ctx: AppContext, actor: Actor, channelId: number, scope: CredentialScope) {
  const channel = await visibleChannel(ctx, actor, channelId);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const key = await generateChannelKey({ ...ctx, db: tx }, scope, channelId);
    await recordAudit(tx, {
      actor,
      action: `${scope}_key.generate`,
      targetType: `${scope}_key`,
      targetId: key.id,
      organiserId: channel.organiserId,
      details: { channel_id: channelId, slug: channel.slug, last_four: key.last_four },
      at: now,
    });
    return { id: key.id, key: key.key, last_four: key.last_four, created_at: isoWithOffset(key.created_at)!, revoked_at: null };
  });
}

/** Generates a widget key; the plain key is in the answer once and never stored (D7). */
export async function generateKeyAs(ctx: AppContext, actor: Actor, channelId: number) {
  const { key, ...rest } = await generateAuditedKey(ctx, actor, channelId, 'widget');
  return { ...rest, widget_key: key };
}

/** Generates a server key (D39); the plain key is in the answer once and never stored. */
export async function generateServerKeyAs(ctx: AppContext, actor: Actor, channelId: number) {
  const { key, ...rest } = await generateAuditedKey(ctx, actor, channelId, 'server');
  return { ...rest, server_key: key };
}

/**
 * Revokes a key and, at once, the tokens it stands behind: a widget key every widget-scope token
 * of the channel (D7, D38), a server key the tokens issued from it (D39).
 */
export async function revokeKeyAs(ctx: AppContext, actor: Actor, channelId: number, keyId: number, scope: CredentialScope = 'widget') {
  const channel = await visibleChannel(ctx, actor, channelId);
  const now = ctx.clock.now();
  const key = await ctx.db.transaction(async (tx) => {
    const existing = await findChannelKey({ ...ctx, db: tx }, scope, channelId, keyId, { lock: true });
    if (!existing) throw notFound(KEY_NAMES[scope]);
    if (existing.revokedAt) throw new AppError('conflict.key_revoked', { key: KEY_NAMES[scope].toLowerCase() });
    await revokeChannelKey({ ...ctx, db: tx }, scope, channelId, keyId);
    await recordAudit(tx, {
      actor,
      action: `${scope}_key.revoke`,
      targetType: `${scope}_key`,
      targetId: keyId,
      organiserId: channel.organiserId,
      details: { channel_id: channelId, slug: channel.slug, last_four: existing.lastFour },
      at: now,
    });
    return (await findChannelKey({ ...ctx, db: tx }, scope, channelId, keyId))!;
  });
  return keyView(key);
}

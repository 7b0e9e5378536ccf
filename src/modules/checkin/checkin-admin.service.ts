import type { AppContext } from '../../app-context.js';
import { AppError, invalidData } from '../../http/errors.js';
import { INT32_MAX } from '../../http/schemas.js';
import { randomBase62, sha256 } from '../../lib/secrets.js';
import { canSee, organiserForNew, organiserScope, requireAdmin, type Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import { organiserExists } from '../../platform/organisers.repo.js';
import { listSigningKeys, reissueTicket, rotateSigningKey } from '../tickets/ticket-keys.service.js';
import * as repo from './checkin-admin.repo.js';
import * as scanRepo from './checkin.repo.js';
import { dbIso } from '../../db/instants.js';

// Back-office use cases of check-in (D54, docs/checkin.md): lists, devices and their tokens, the
// counts and scans of a list, the signing keys. A promoter sees its organiser's only; anything else
// is 404, as everywhere in the back office.

const invalid = (field: string, text: string) => invalidData({ [field]: [text] });

/** A device token: `ck_` + 43 base62 characters (~256 bits), like the project's other bearer secrets. */
const newDeviceToken = () => `ck_${randomBase62(43)}`;

/** The URL a device's QR code holds: the scanner app reads its token from the fragment (never sent to a server). */
const setupUrl = (ctx: AppContext, token: string) => `${ctx.config.publicBaseUrl}/checkin/#setup=${token}`;

const listView = (l: repo.AdminListRow) => ({
  id: l.id,
  organiser_id: l.organiser_id,
  name: l.name,
  allow_reentry: l.allow_reentry,
  opens_minutes_before: l.opens_minutes_before,
  session_ids: l.session_ids.map(Number),
  sector_ids: l.sector_ids.length ? l.sector_ids.map(Number) : null,
  created_at: dbIso(l.created_at),
});
export type ListView = ReturnType<typeof listView>;

const deviceView = (d: repo.AdminDeviceRow) => ({
  id: d.id,
  organiser_id: d.organiser_id,
  name: d.name,
  token_last4: d.token_last4,
  list_ids: d.list_ids.map(Number),
  created_at: dbIso(d.created_at),
  last_seen_at: dbIso(d.last_seen_at),
  revoked_at: dbIso(d.revoked_at),
});
export type DeviceView = ReturnType<typeof deviceView>;

export interface ListInput {
  organiser_id?: number | null;
  name?: string;
  session_ids?: number[];
  sector_ids?: number[] | null;
  allow_reentry?: boolean;
  opens_minutes_before?: number;
}

async function visibleList(ctx: AppContext, actor: Actor, id: number): Promise<repo.AdminListRow> {
  const row = await repo.list(ctx.db, id);
  if (!row || !canSee(actor, row.organiser_id)) throw new AppError('not_found', 'Check-in list not found');
  return row;
}

async function knownOrganiser(ctx: AppContext, actor: Actor, requested: number | null | undefined): Promise<number> {
  const organiserId = organiserForNew(actor, requested);
  const known = Number.isInteger(organiserId) && organiserId >= 1 && organiserId <= INT32_MAX && (await organiserExists(ctx.db, organiserId));
  if (!known) throw invalid('organiser_id', `unknown organiser ${organiserId}`);
  return organiserId;
}

/** The sessions and sectors of a list, each checked to be the organiser's (a foreign id is unknown). */
async function scopeOf(ctx: AppContext, organiserId: number, input: ListInput, current?: repo.AdminListRow) {
  const sessionIds = [...new Set(input.session_ids ?? current?.session_ids.map(Number) ?? [])];
  if (!sessionIds.length) throw invalid('session_ids', 'must name at least one session');
  const own = await repo.sessionsOfOrganiser(ctx.db, organiserId, sessionIds);
  const unknown = sessionIds.filter((id) => !own.includes(id));
  if (unknown.length) throw invalid('session_ids', `unknown sessions of the list's organiser: ${unknown.join(', ')}`);
  const sectorIds = [...new Set(input.sector_ids === undefined ? (current?.sector_ids.map(Number) ?? []) : (input.sector_ids ?? []))];
  const known = await repo.sectorsOfSessions(ctx.db, sessionIds, sectorIds);
  const foreign = sectorIds.filter((id) => !known.includes(id));
  if (foreign.length) throw invalid('sector_ids', `not sectors of the list's sessions: ${foreign.join(', ')}`);
  return { sessionIds, sectorIds };
}

function settingsOf(input: ListInput, current?: repo.AdminListRow) {
  const name = (input.name ?? current?.name ?? '').trim();
  if (!name || name.length > 200) throw invalid('name', 'must be 1 to 200 characters');
  const opens = input.opens_minutes_before ?? current?.opens_minutes_before ?? 360;
  if (!Number.isInteger(opens) || opens < 0 || opens > 10080) throw invalid('opens_minutes_before', 'must be a whole number of minutes from 0 to 10080');
  return { name, allowReentry: input.allow_reentry ?? current?.allow_reentry ?? false, opensMinutesBefore: opens };
}

export async function listListsFor(ctx: AppContext, actor: Actor): Promise<ListView[]> {
  return (await repo.lists(ctx.db, organiserScope(actor))).map(listView);
}

export async function getListFor(ctx: AppContext, actor: Actor, id: number): Promise<ListView> {
  return listView(await visibleList(ctx, actor, id));
}

/** A check-in list: sessions, optionally only some sectors, re-entry or not. */
export async function createListAs(ctx: AppContext, actor: Actor, input: ListInput): Promise<ListView> {
  const organiserId = await knownOrganiser(ctx, actor, input.organiser_id);
  const settings = settingsOf(input);
  const scope = await scopeOf(ctx, organiserId, input);
  const now = ctx.clock.now();
  const id = await ctx.db.transaction(async (tx) => {
    const listId = await repo.insertList(tx, { organiserId, ...settings, at: now });
    await repo.setListScope(tx, listId, scope.sessionIds, scope.sectorIds);
    await recordAudit(tx, { actor, action: 'checkin_list.create', targetType: 'checkin_list', targetId: listId, organiserId, details: { ...input }, at: now });
    return listId;
  });
  return getListFor(ctx, actor, id);
}

export async function updateListAs(ctx: AppContext, actor: Actor, id: number, input: Omit<ListInput, 'organiser_id'>): Promise<ListView> {
  const current = await visibleList(ctx, actor, id);
  const settings = settingsOf(input, current);
  const scope = await scopeOf(ctx, current.organiser_id, input, current);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await repo.updateList(tx, id, settings);
    await repo.setListScope(tx, id, scope.sessionIds, scope.sectorIds);
    await recordAudit(tx, { actor, action: 'checkin_list.update', targetType: 'checkin_list', targetId: id, organiserId: current.organiser_id, details: { ...input }, at: now });
  });
  return getListFor(ctx, actor, id);
}

/** The sessions (newest first) and their venues' sectors the actor may put on a list: the dashboard's form. */
export async function listChoicesFor(ctx: AppContext, actor: Actor) {
  const sessions = await repo.organiserSessions(ctx.db, organiserScope(actor));
  const sectors = await repo.sectorsOfVenues(ctx.db, [...new Set(sessions.map((s) => s.venue_id))]);
  return { sessions: sessions.map((s) => ({ id: s.id, event_name: s.event_name, starts_at: dbIso(s.starts_at) })), sectors };
}

// ---- devices

export async function listDevicesFor(ctx: AppContext, actor: Actor): Promise<DeviceView[]> {
  return (await repo.devices(ctx.db, organiserScope(actor))).map(deviceView);
}

async function visibleDevice(ctx: AppContext, actor: Actor, id: number) {
  const row = await repo.device(ctx.db, id);
  if (!row || !canSee(actor, row.organiser_id)) throw new AppError('not_found', 'Check-in device not found');
  return row;
}

/** A device for a gate, for some of the organiser's lists; its token is in the answer only this once. */
export async function createDeviceAs(
  ctx: AppContext,
  actor: Actor,
  input: { organiser_id?: number | null; name: string; list_ids: number[] },
): Promise<DeviceView & { token: string; setup_url: string }> {
  const name = input.name.trim();
  if (!name || name.length > 100) throw invalid('name', 'must be 1 to 100 characters');
  const listIds = [...new Set(input.list_ids)];
  if (!listIds.length) throw invalid('list_ids', 'must name at least one check-in list');
  // A promoter's own organiser; an admin may leave it out and the lists decide.
  const firstList = await repo.list(ctx.db, listIds[0]!);
  const organiserId = await knownOrganiser(ctx, actor, input.organiser_id ?? (actor.role === 'admin' ? firstList?.organiser_id : undefined));
  for (const id of listIds) {
    const l = await repo.list(ctx.db, id);
    if (!l || l.organiser_id !== organiserId || !canSee(actor, l.organiser_id)) throw invalid('list_ids', `unknown check-in list ${id} of the organiser`);
  }
  const token = newDeviceToken();
  const now = ctx.clock.now();
  const id = await ctx.db.transaction(async (tx) => {
    const deviceId = await repo.insertDevice(tx, { organiserId, name, tokenHash: sha256(token), last4: token.slice(-4), listIds, at: now });
    await recordAudit(tx, { actor, action: 'checkin_device.create', targetType: 'checkin_device', targetId: deviceId, organiserId, details: { name, list_ids: listIds }, at: now });
    return deviceId;
  });
  return { ...deviceView((await repo.device(ctx.db, id))!), token, setup_url: setupUrl(ctx, token) };
}

/** Revokes a device: its next request is 401. */
export async function revokeDeviceAs(ctx: AppContext, actor: Actor, id: number): Promise<DeviceView> {
  const current = await visibleDevice(ctx, actor, id);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await repo.revokeDevice(tx, id, now);
    await recordAudit(tx, { actor, action: 'checkin_device.revoke', targetType: 'checkin_device', targetId: id, organiserId: current.organiser_id, at: now });
  });
  return deviceView((await repo.device(ctx.db, id))!);
}

// ---- what happens at the door

/** Per session: checked in / sold (and inside); per gate: entries let in and scans refused. */
export async function listCountsFor(ctx: AppContext, actor: Actor, id: number) {
  const list = await visibleList(ctx, actor, id);
  const [sessions, names, devices] = await Promise.all([
    scanRepo.countsPerSession(ctx.db, id),
    scanRepo.sessionsOfLists(ctx.db, [id]),
    scanRepo.entriesPerDevice(ctx.db, id),
  ]);
  return {
    list: listView(list),
    sessions: names.map((n) => {
      const c = sessions.find((s) => s.session_id === n.id);
      return { session_id: n.id, event_name: n.event_name, starts_at: dbIso(n.starts_at), sold: Number(c?.sold ?? 0), checked_in: Number(c?.checked_in ?? 0), inside: Number(c?.inside ?? 0) };
    }),
    devices: devices.map((d) => ({ device_id: d.device_id, device_name: d.device_name, entries: Number(d.entries), refused: Number(d.refused) })),
  };
}

/** Scans of a list, newest first; `twice` keeps the already_used ones (who tried to enter again). */
export async function listScansFor(ctx: AppContext, actor: Actor, id: number, opts: { twice?: boolean; beforeId?: number; limit?: number }) {
  await visibleList(ctx, actor, id);
  const rows = await repo.scans(ctx.db, id, { twice: opts.twice ?? false, beforeId: opts.beforeId, limit: opts.limit ?? 100 });
  return rows.map((r) => ({
    id: Number(r.id),
    scanned_at: dbIso(r.scanned_at),
    received_at: dbIso(r.received_at),
    device_name: r.device_name,
    direction: r.direction,
    result: r.result,
    offline: r.offline,
    ticket_id: r.ticket_id === null ? null : Number(r.ticket_id),
    buyer_name: r.buyer_name,
    first_scan: r.result === 'already_used' && r.first_scanned_at ? { scanned_at: dbIso(r.first_scanned_at), device_name: r.first_device_name! } : null,
  }));
}

// ---- signing keys (deployment-wide: admins only)

export async function listKeysAs(ctx: AppContext, actor: Actor) {
  requireAdmin(actor);
  return listSigningKeys(ctx);
}

export async function rotateKeyAs(ctx: AppContext, actor: Actor) {
  requireAdmin(actor);
  const rotated = await rotateSigningKey(ctx);
  await recordAudit(ctx.db, { actor, action: 'ticket_key.rotate', targetType: 'ticket_signing_key', targetId: rotated.kid, details: { retired: rotated.retired }, at: ctx.clock.now() });
  return rotated;
}

/** Reissues a ticket: its old QR stops scanning (invalid), the new one (new PDF) scans. Audited. */
export async function reissueTicketAs(ctx: AppContext, actor: Actor, ticketId: number) {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const r = await reissueTicket(ctx, ticketId, organiserScope(actor), tx);
    await recordAudit(tx, { actor, action: 'ticket.reissue', targetType: 'ticket', targetId: ticketId, organiserId: r.organiserId, details: { issue_version: r.issueVersion }, at: now });
    return { ticket_id: r.ticketId, v: r.issueVersion };
  });
}

import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import type { venues as venuesTable } from '../../db/schema/index.js';
import { AppError, invalidData, schemaErrors, type FieldErrors } from '../../http/errors.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { isoWithOffset } from '../../lib/time.js';
import { canSee, organiserForNew, organiserScope, type Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import { organiserExists } from '../../platform/organisers.repo.js';
import * as adminRepo from './catalogue-admin.repo.js';
import { Layout, MAX_LAYOUT_SEATS, PretixPlan, type LayoutCreate, type VenueCreate, type VenueUpdate } from './layout.schemas.js';
import * as repo from './layouts.repo.js';
import { fromPretix, toPretix } from './pretix-plan.js';

// Venues and their seat-map versions (D64, docs/venues.md). A version is immutable; saving one moves
// the venue's upcoming sessions onto it, unless a seat they have sold or held would go (409
// layout_seat_in_use). A promoter reaches only its organiser's venues: another's answers 404.

type VenueRow = typeof venuesTable.$inferSelect;
export type LayoutFormat = LayoutCreate['format'];

// ---- the layout document's own rules (beyond its schema)

/** Field errors of a layout the schema accepts but that breaks a rule; keys are paths under `plan`. */
export function layoutProblems(layout: Layout): FieldErrors | null {
  const errors: FieldErrors = {};
  const add = (path: string, text: string) => (errors[`plan.${path}`] ??= []).push(text);
  const names = new Set<string>();
  let seats = 0;
  layout.sectors.forEach((sector, i) => {
    if (names.has(sector.name)) add(`sectors.${i}.name`, `repeats the sector "${sector.name}": sector names are unique in a layout`);
    names.add(sector.name);
    if (sector.numbered && sector.capacity !== undefined) add(`sectors.${i}.capacity`, 'is for unnumbered sectors only: a numbered sector holds its seats');
    if (!sector.numbered && sector.capacity === undefined) add(`sectors.${i}.capacity`, 'is required for an unnumbered sector');
    if (!sector.numbered && sector.rows?.length) add(`sectors.${i}.rows`, 'an unnumbered sector has a capacity, not rows');
    const places = new Set<string>();
    sector.rows?.forEach((row, r) =>
      row.seats.forEach((seat, s) => {
        const place = JSON.stringify([row.label, seat.number]);
        if (places.has(place)) add(`sectors.${i}.rows.${r}.seats.${s}.number`, `repeats seat ${seat.number} of row ${row.label}`);
        if (seat.wheelchair && seat.companion) add(`sectors.${i}.rows.${r}.seats.${s}.companion`, 'a wheelchair place is not also a companion seat');
        places.add(place);
        seats++;
      }),
    );
  });
  if (seats > MAX_LAYOUT_SEATS) add('sectors', `holds ${seats} seats; at most ${MAX_LAYOUT_SEATS}`);
  return Object.keys(errors).length ? errors : null;
}

/** The plan of a request as a checked Taquilla layout, whichever format it came in. */
function readPlan(format: LayoutFormat, plan: unknown): Layout {
  const errors = schemaErrors(format === 'pretix' ? PretixPlan : Layout, plan, 'plan');
  if (errors) throw invalidData(Object.fromEntries(Object.entries(errors).map(([k, v]) => [k === 'plan' ? k : `plan.${k}`, v])));
  const layout = format === 'pretix' ? fromPretix(plan as PretixPlan) : (plan as Layout);
  const problems = layoutProblems(layout);
  if (problems) throw invalidData(problems);
  return layout;
}

// ---- saving a version

/**
 * Saves `layout` as the venue's next version inside `tx`: the version row, the venue's sectors
 * (matched by name, kept across versions, retired when the version drops them) and the seats,
 * absolute positions for drawing. Returns the new version and the sector ids by name.
 */
export async function saveLayoutVersion(tx: Db, venueId: number, layout: Layout, now: Date) {
  await repo.lockVenue(tx, venueId);
  const version = (await repo.newestVersion(tx, venueId)) + 1;
  const row = await repo.insertLayout(tx, {
    venueId,
    version,
    document: layout as unknown as Record<string, unknown>,
    focalX: layout.focal_point?.x ?? null,
    focalY: layout.focal_point?.y ?? null,
    createdAt: now,
  });
  const existing = new Map((await repo.allSectors(tx, venueId)).map((s) => [s.name, s]));
  const sectorIds = new Map<string, number>();
  const seats: Parameters<typeof repo.insertSeats>[1] = [];
  for (const [i, sector] of layout.sectors.entries()) {
    const count = (sector.rows ?? []).reduce((n, r) => n + r.seats.length, 0);
    const fields = { numbered: sector.numbered, capacity: sector.numbered ? count : sector.capacity!, sortOrder: i, retired: false };
    const found = existing.get(sector.name);
    const sectorId = found ? found.id : await repo.insertSector(tx, { venueId, name: sector.name, ...fields });
    if (found) await repo.updateSector(tx, found.id, fields);
    existing.delete(sector.name);
    sectorIds.set(sector.name, sectorId);
    const sx = sector.position?.x ?? 0;
    const sy = sector.position?.y ?? 0;
    for (const r of sector.rows ?? []) {
      for (const seat of r.seats) {
        seats.push({
          layoutId: row.id,
          sectorId,
          row: r.label,
          number: seat.number,
          x: sx + (r.position?.x ?? 0) + seat.x,
          y: sy + (r.position?.y ?? 0) + seat.y,
          category: seat.category ?? null,
          wheelchair: seat.wheelchair ?? false,
          companion: seat.companion ?? false,
          restrictedView: seat.restricted_view ?? false,
          rowPriority: r.priority ?? 0,
        });
      }
    }
  }
  for (const gone of existing.values()) if (!gone.retired) await repo.updateSector(tx, gone.id, { retired: true });
  await repo.insertSeats(tx, seats);
  return { layoutId: row.id, version, sectorIds, createdAt: row.createdAt };
}

/**
 * Moves the venue's upcoming sessions onto the new version: their inventory follows the seats by
 * sector, row and number; seats and places the version drops are retired; new ones are added.
 * Refuses (409 layout_seat_in_use, the seats in `data`) when a sold or held seat would go, or a zone
 * would hold fewer places than it has sold and held. Runs after every inventory row of those
 * sessions is locked, so no hold slips in between the check and the move.
 */
export async function moveSessions(tx: Db, venueId: number, layout: Layout, saved: Awaited<ReturnType<typeof saveLayoutVersion>>, now: Date) {
  const sessionIds = await repo.sessionsToMove(tx, venueId, saved.layoutId, now);
  if (!sessionIds.length) return sessionIds;
  await repo.lockInventory(tx, sessionIds);
  const seats = await repo.seatsInUseMissing(tx, sessionIds, saved.layoutId, now);
  const capacityOf = new Map(layout.sectors.filter((s) => !s.numbered).map((s) => [saved.sectorIds.get(s.name)!, s.capacity!]));
  const zones = await repo.zonePlaces(tx, sessionIds, now);
  const zonesInUse = zones
    .filter((z) => z.taken > (capacityOf.get(Number(z.sector_id)) ?? 0))
    .map((z) => ({ session_id: Number(z.session_id), sector: z.sector, taken: Number(z.taken), capacity: capacityOf.get(Number(z.sector_id)) ?? 0 }));
  if (seats.length || zonesInUse.length) {
    throw new AppError('layout_seat_in_use', 'The new version removes or renumbers seats that sessions have sold or held').withData({
      seats: seats.map((s) => ({ session_id: Number(s.session_id), sector: s.sector, row: s.row, number: s.number, status: s.status })),
      zones: zonesInUse,
    });
  }
  await repo.retireMissingSeats(tx, sessionIds, saved.layoutId);
  await repo.remapSeats(tx, sessionIds, saved.layoutId);
  const placesOf = new Map(zones.map((z) => [`${z.session_id}/${z.sector_id}`, Number(z.places)]));
  const sectorIdsWithPlaces = new Set([...zones.map((z) => Number(z.sector_id)), ...capacityOf.keys()]);
  for (const sessionId of sessionIds) {
    for (const sectorId of sectorIdsWithPlaces) {
      const have = placesOf.get(`${sessionId}/${sectorId}`) ?? 0;
      const want = capacityOf.get(sectorId) ?? 0;
      if (want > have) await repo.addZonePlaces(tx, sessionId, sectorId, want - have);
      if (want < have) await repo.removeZonePlaces(tx, sessionId, sectorId, have - want, now);
    }
  }
  await repo.setSessionsLayout(tx, sessionIds, saved.layoutId, now);
  return sessionIds;
}

// ---- views

async function venueViews(ctx: AppContext, venues: VenueRow[]) {
  const ids = venues.map((v) => v.id);
  const [versions, sectors] = await Promise.all([repo.latestVersions(ctx.db, ids), repo.currentSectors(ctx.db, ids)]);
  return venues.map((v) => ({
    id: v.id,
    organiser_id: v.organiserId,
    name: v.name,
    address: v.address,
    city: v.city,
    layout_version: versions.get(v.id) ?? null,
    sectors: sectors.filter((s) => s.venueId === v.id).map((s) => ({ id: s.id, name: s.name, numbered: s.numbered, capacity: s.capacity })),
    created_at: isoWithOffset(v.createdAt)!,
  }));
}
export type VenueView = Awaited<ReturnType<typeof venueViews>>[number];

async function visibleVenue(db: Db, actor: Actor, id: number) {
  const venue = await adminRepo.findVenue(db, id);
  if (!venue || !canSee(actor, venue.organiserId)) throw new AppError('not_found', 'Venue not found');
  return venue;
}

// ---- use cases

export async function listVenueViewsFor(ctx: AppContext, actor: Actor): Promise<VenueView[]> {
  return venueViews(ctx, await adminRepo.listVenues(ctx.db, organiserScope(actor)));
}

export async function getVenueFor(ctx: AppContext, actor: Actor, id: number): Promise<VenueView> {
  return (await venueViews(ctx, [await visibleVenue(ctx.db, actor, id)]))[0]!;
}

export async function createVenueAs(ctx: AppContext, actor: Actor, input: VenueCreate): Promise<VenueView> {
  const organiserId = organiserForNew(actor, input.organiser_id);
  if (!(await organiserExists(ctx.db, organiserId))) throw new AppError('not_found', 'Organiser not found');
  const now = ctx.clock.now();
  const venue = await ctx.db.transaction(async (tx) => {
    const row = await repo.insertVenue(tx, { organiserId, name: input.name, address: input.address ?? null, city: input.city ?? null, createdAt: now });
    await recordAudit(tx, { actor, action: 'venue.create', targetType: 'venue', targetId: row.id, organiserId, details: { name: input.name }, at: now });
    return row;
  });
  return (await venueViews(ctx, [venue]))[0]!;
}

export async function updateVenueAs(ctx: AppContext, actor: Actor, id: number, input: VenueUpdate): Promise<VenueView> {
  const venue = await visibleVenue(ctx.db, actor, id);
  const patch: Partial<VenueRow> = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.address !== undefined) patch.address = input.address;
  if (input.city !== undefined) patch.city = input.city;
  const now = ctx.clock.now();
  const row = await ctx.db.transaction(async (tx) => {
    const updated = Object.keys(patch).length ? await repo.updateVenue(tx, id, patch) : venue;
    await recordAudit(tx, { actor, action: 'venue.update', targetType: 'venue', targetId: id, organiserId: venue.organiserId, details: { ...input }, at: now });
    return updated;
  });
  return (await venueViews(ctx, [row]))[0]!;
}

export async function listLayoutsFor(ctx: AppContext, actor: Actor, venueId: number) {
  await visibleVenue(ctx.db, actor, venueId);
  return (await repo.layoutSummaries(ctx.db, venueId)).map((l) => ({
    version: Number(l.version),
    seats: Number(l.seats),
    capacity: Number(l.seats) + Number(l.places),
    sessions: Number(l.sessions),
    created_at: isoWithOffset(new Date(l.created_at))!,
  }));
}

export async function getLayoutFor(ctx: AppContext, actor: Actor, venueId: number, version: number, format: LayoutFormat = 'taquilla') {
  const venue = await visibleVenue(ctx.db, actor, venueId);
  const row = await repo.findLayout(ctx.db, venueId, version);
  if (!row) throw new AppError('not_found', 'Layout version not found');
  const layout = row.document as unknown as Layout;
  return {
    venue_id: venueId,
    version: row.version,
    format,
    plan: format === 'pretix' ? toPretix(layout, venue.name) : layout,
    created_at: isoWithOffset(row.createdAt)!,
  };
}

/** Saves the next version of a venue's layout from a Taquilla or pretix plan and moves the upcoming sessions onto it. */
export async function createLayoutAs(ctx: AppContext, actor: Actor, venueId: number, input: LayoutCreate) {
  const venue = await visibleVenue(ctx.db, actor, venueId);
  const layout = readPlan(input.format, input.plan);
  const now = ctx.clock.now();
  const { saved, moved } = await ctx.db.transaction(async (tx) => {
    const saved = await saveLayoutVersion(tx, venueId, layout, now);
    const moved = await moveSessions(tx, venueId, layout, saved, now);
    await recordAudit(tx, {
      actor,
      action: 'venue.layout',
      targetType: 'venue',
      targetId: venueId,
      organiserId: venue.organiserId,
      details: { version: saved.version, format: input.format, sessions_moved: moved },
      at: now,
    });
    return { saved, moved };
  });
  inventoryChanged(ctx, moved);
  return { venue_id: venueId, version: saved.version, format: input.format, plan: input.plan, created_at: isoWithOffset(saved.createdAt)!, sessions_moved: moved };
}

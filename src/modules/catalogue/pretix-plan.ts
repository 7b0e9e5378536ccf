import type { Layout, LayoutSector, LayoutShape, PretixArea, PretixPlan, PretixZone } from './layout.schemas.js';

// pretix seating plans <-> Taquilla layouts (D64). Everything both formats carry maps one to one
// (zones and sectors, rows, seats with their number, position and category, categories, the plan's
// name and size, areas and shapes); what only pretix has (uuids, seat guids, label templates, the
// seat radius) travels in each element's `pretix` object, so that the export of an imported plan
// equals it. Positions stay relative, as in pretix: a seat's to its row, a row's to its sector.
// What only Taquilla has (row priority, focal point, seat flags, unnumbered capacities, shape
// roles) has no place in a pretix plan and is left out of the export.

/** Copies the properties of `from` named in `keys` that are present (even when null). */
function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Pick<T, K> | undefined {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return Object.keys(out).length ? (out as Pick<T, K>) : undefined;
}

const withExtras = <T extends object>(value: T, extras: object | undefined): T => (extras ? { ...value, pretix: extras } : value);

function areaToShape(area: PretixArea): LayoutShape {
  const shape: LayoutShape = { kind: area.shape ?? 'rectangle' };
  if (area.position) shape.position = area.position;
  if (area.rotation !== undefined) shape.rotation = area.rotation;
  if (area.color !== undefined) shape.color = area.color;
  if (area.border_color !== undefined) shape.border_color = area.border_color;
  if (area.rectangle) Object.assign(shape, { width: area.rectangle.width, height: area.rectangle.height });
  if (area.circle) shape.radius = area.circle.radius;
  if (area.ellipse) shape.radius_xy = area.ellipse.radius;
  if (area.polygon) shape.points = area.polygon.points;
  if (area.text) shape.text = area.text;
  const extras = { ...(area.uuid !== undefined ? { uuid: area.uuid } : {}), ...(area.shape === undefined ? { no_shape: true } : {}) };
  return withExtras(shape, Object.keys(extras).length ? extras : undefined);
}

function shapeToArea(shape: LayoutShape): PretixArea {
  const area: PretixArea = {};
  if (!shape.pretix?.no_shape) area.shape = shape.kind;
  if (shape.pretix?.uuid !== undefined) area.uuid = shape.pretix.uuid;
  if (shape.position) area.position = shape.position;
  if (shape.rotation !== undefined) area.rotation = shape.rotation;
  if (shape.color !== undefined) area.color = shape.color;
  if (shape.border_color !== undefined) area.border_color = shape.border_color;
  if (shape.width !== undefined || shape.height !== undefined) area.rectangle = { width: shape.width ?? 0, height: shape.height ?? 0 };
  if (shape.radius !== undefined) area.circle = { radius: shape.radius };
  if (shape.radius_xy) area.ellipse = { radius: shape.radius_xy };
  if (shape.points) area.polygon = { points: shape.points };
  if (shape.text) area.text = shape.text;
  return area;
}

/**
 * A pretix plan (already checked against its schema) as a Taquilla layout. Zones without a usable
 * name (absent, empty, or repeated: a sector's name is its identity across versions) are named
 * "Zone <n>", the pretix name kept for export.
 */
export function fromPretix(plan: PretixPlan): Layout {
  const seen = new Set<string>();
  const sectors = plan.zones.map((zone, i): LayoutSector => {
    const usable = zone.name !== undefined && zone.name.trim() !== '' && !seen.has(zone.name);
    const name = usable ? zone.name! : uniqueName(`Zone ${i + 1}`, seen, plan.zones);
    seen.add(name);
    const sector: LayoutSector = {
      name,
      numbered: true,
      position: zone.position,
      rows: zone.rows.map((row) =>
        withExtras(
          {
            label: row.row_number,
            ...(row.position ? { position: row.position } : {}),
            seats: row.seats.map((seat) =>
              withExtras(
                { number: seat.seat_number, x: seat.position.x, y: seat.position.y, category: seat.category },
                pick(seat, ['seat_guid', 'uuid', 'start_direction', 'radius'] as const),
              ),
            ),
          },
          pick(row, ['row_label', 'seat_label', 'uuid', 'row_number_position'] as const),
        ),
      ),
    };
    if (zone.areas) sector.shapes = zone.areas.map(areaToShape);
    const extras = {
      ...pick(zone, ['zone_id', 'uuid'] as const),
      ...(usable ? {} : zone.name === undefined ? { name_absent: true } : { name: zone.name }),
    };
    return withExtras(sector, Object.keys(extras).length ? extras : undefined);
  });
  return { name: plan.name, size: plan.size, categories: plan.categories, sectors };
}

function uniqueName(base: string, seen: Set<string>, zones: PretixZone[]): string {
  const taken = (n: string) => seen.has(n) || zones.some((z) => z.name === n);
  let name = base;
  for (let k = 2; taken(name); k++) name = `${base} (${k})`;
  return name;
}

/** A Taquilla layout as a pretix seating plan; `fallbackName` names a layout that has none. */
export function toPretix(layout: Layout, fallbackName: string): PretixPlan {
  const zones: PretixZone[] = layout.sectors.map((sector) => {
    const extras = (sector.pretix ?? {}) as { zone_id?: string; uuid?: string; name?: string; name_absent?: boolean };
    const zone: PretixZone = {
      ...(extras.name_absent ? {} : { name: extras.name ?? sector.name }),
      ...(extras.zone_id !== undefined ? { zone_id: extras.zone_id } : {}),
      ...(extras.uuid !== undefined ? { uuid: extras.uuid } : {}),
      position: sector.position ?? { x: 0, y: 0 },
      rows: (sector.rows ?? []).map((row) => ({
        row_number: row.label,
        ...row.pretix,
        ...(row.position ? { position: row.position } : {}),
        seats: row.seats.map((seat) => ({
          seat_guid: seat.pretix?.seat_guid ?? `${sector.name}-${row.label}-${seat.number}`,
          seat_number: seat.number,
          position: { x: seat.x, y: seat.y },
          category: seat.category ?? '',
          ...(seat.pretix?.uuid !== undefined ? { uuid: seat.pretix.uuid } : {}),
          ...(seat.pretix?.start_direction !== undefined ? { start_direction: seat.pretix.start_direction } : {}),
          ...(seat.pretix?.radius !== undefined ? { radius: seat.pretix.radius } : {}),
        })),
      })),
    };
    if (sector.shapes) zone.areas = sector.shapes.map(shapeToArea);
    return zone;
  });
  // pretix has no plan-wide drawing: Taquilla's plan-level shapes go to a zone of their own.
  if (layout.shapes?.length) zones.push({ name: 'Drawing', position: { x: 0, y: 0 }, rows: [], areas: layout.shapes.map(shapeToArea) });
  return {
    name: layout.name ?? fallbackName,
    categories: layout.categories ?? categoriesOf(layout),
    zones,
    size: layout.size ?? sizeOf(layout),
  };
}

const categoriesOf = (layout: Layout) =>
  [...new Set(layout.sectors.flatMap((s) => (s.rows ?? []).flatMap((r) => r.seats.map((seat) => seat.category ?? ''))))].map((name) => ({ name }));

/** The plan's size when the layout states none: the seats' extent plus a margin. */
function sizeOf(layout: Layout) {
  let width = 0;
  let height = 0;
  for (const s of layout.sectors) {
    for (const r of s.rows ?? []) {
      for (const seat of r.seats) {
        width = Math.max(width, (s.position?.x ?? 0) + (r.position?.x ?? 0) + seat.x);
        height = Math.max(height, (s.position?.y ?? 0) + (r.position?.y ?? 0) + seat.y);
      }
    }
  }
  return { width: Math.ceil(width) + 50, height: Math.ceil(height) + 50 };
}

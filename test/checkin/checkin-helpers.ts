import { sql } from 'drizzle-orm';
import type { AppContext } from '../../src/app-context.js';
import { queryRows } from '../../src/db/client.js';
import { CLI_ACTOR } from '../../src/platform/actor.js';
import { createDeviceAs, createListAs, type ListInput } from '../../src/modules/checkin/checkin-admin.service.js';
import { qrSecretOf } from '../../src/modules/tickets/ticket-keys.service.js';
import { ticketsOfOrder } from '../../src/modules/tickets/tickets.repo.js';
import { bearer, DEMO, serverTokenFor, type TestApp } from '../helpers.js';
import { buyer, confirmUrl, createPendingOrder } from '../checkout/fixtures.js';

const CHECKIN = '/api/checkin/v1';

/** The demo sessions in start order, with their organiser. */
export async function demoSessions(ctx: AppContext) {
  return queryRows<{ id: number; organiser_id: number; venue_id: number }>(
    ctx.db,
    sql`SELECT s.id, e.organiser_id, s.venue_id FROM sessions s JOIN events e ON e.id = s.event_id ORDER BY s.start_datetime, s.id`,
  );
}

/** Moves a session's start to `ms` from the clock's now (admission opens relative to it). */
export async function startSessionIn(t: TestApp, sessionId: number, ms: number) {
  await t.ctx.db.execute(sql`UPDATE sessions SET start_datetime = ${new Date(t.clock.now().getTime() + ms)} WHERE id = ${sessionId}`);
}

/** A list of the demo organiser (unless another is named), created as the operator. */
export async function makeList(t: TestApp, input: ListInput) {
  const [organiser] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT min(organiser_id) AS id FROM events`);
  return createListAs(t.ctx, CLI_ACTOR, { organiser_id: organiser!.id, ...input });
}

export async function makeDevice(t: TestApp, name: string, listIds: number[]) {
  return createDeviceAs(t.ctx, CLI_ACTOR, { name, list_ids: listIds });
}

/** A new device `name` on `listIds`: its scan API client. */
export async function makeGate(t: TestApp, name: string, listIds: number[]) {
  return device(t, (await makeDevice(t, name, listIds)).token);
}

/**
 * Where most scan tests start: the first demo session starting in an hour (admission, 6 h before by
 * default, is open) and a list `listName` of it.
 */
export async function openDoor(t: TestApp, listName: string): Promise<{ sessionId: number; listId: number }> {
  const sessionId = (await demoSessions(t.ctx))[0]!.id;
  await startSessionIn(t, sessionId, 3_600_000);
  const listId = (await makeList(t, { name: listName, session_ids: [sessionId] })).id;
  return { sessionId, listId };
}

/** Sells `seats` tickets of a demo session through the real confirm; their QR secrets and the order. */
export async function sellTickets(t: TestApp, opts: { seats?: number; sessionId?: number; zone?: boolean } = {}) {
  const token = await serverTokenFor(t.app, DEMO.d.slug, DEMO.d.serverKey);
  // The fixture picks a session by its place in start order, which moving a session changes.
  const order = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sessions ORDER BY start_datetime, id`);
  const sessionIndex = opts.sessionId === undefined ? 0 : order.findIndex((s) => s.id === opts.sessionId);
  const o = await createPendingOrder(t.ctx, { channel: 'demo-d', seats: opts.seats ?? 1, sessionIndex, zone: opts.zone });
  const res = await t.app.inject({ method: 'POST', url: confirmUrl('demo-d', o.token), headers: bearer(token), payload: { ...buyer, amount: o.total / 100 } });
  if (res.statusCode !== 200) throw new Error(`confirm failed: ${res.body}`);
  const docs = await ticketsOfOrder(t.ctx.db, o.id);
  const secrets = await Promise.all(docs.map((d) => qrSecretOf(t.ctx, d)));
  return { order: o, tickets: docs.map((d, i) => ({ id: d.id, code: d.code, secret: secrets[i]! })) };
}

/** A scan API client for one device. */
export function device(t: TestApp, token: string) {
  const headers = bearer(token);
  return {
    info: () => t.app.inject({ url: `${CHECKIN}/device`, headers }),
    scan: (listId: number, body: Record<string, unknown>) => t.app.inject({ method: 'POST', url: `${CHECKIN}/lists/${listId}/scans`, headers, payload: body }),
    batch: (listId: number, scans: unknown[]) => t.app.inject({ method: 'POST', url: `${CHECKIN}/lists/${listId}/scans/batch`, headers, payload: { scans } }),
    tickets: (listId: number, query = '') => t.app.inject({ url: `${CHECKIN}/lists/${listId}/tickets${query}`, headers }),
    status: (listId: number) => t.app.inject({ url: `${CHECKIN}/lists/${listId}/status`, headers }),
  };
}

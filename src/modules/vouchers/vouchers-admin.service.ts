import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError, invalidData } from '../../http/errors.js';
import { INT32_MAX } from '../../http/schemas.js';
import { toAmount, toMinor } from '../../lib/money.js';
import { isoWithOffset } from '../../lib/time.js';
import { canSee, conflictOnDuplicate, organiserForNew, organiserScope, type Actor } from '../../platform/actor.js';
import { organiserExists } from '../../platform/organisers.repo.js';
import { recordAudit } from '../../platform/audit.js';
import * as repo from './vouchers-admin.repo.js';

// Back-office use cases on vouchers (issue 8). Values come in as in the catalogue import:
// percent = a percentage (10 = 10 %), fixed = an amount of the deployment currency off the order.

type VoucherRow = repo.VoucherAdminRow;

const voucherView = (v: VoucherRow) => ({
  id: v.id,
  organiser_id: v.organiserId,
  code: v.code,
  kind: v.kind,
  value: v.kind === 'percent' ? v.value / 100 : toAmount(v.value),
  valid_from: isoWithOffset(v.validFrom),
  valid_until: isoWithOffset(v.validUntil),
  max_uses: v.maxUses,
  event_id: v.eventId,
  session_id: v.sessionId,
  rate_id: v.rateId,
  active: v.active,
  created_at: isoWithOffset(v.createdAt)!,
});
export type VoucherView = ReturnType<typeof voucherView>;

export interface VoucherInput {
  organiser_id?: number | null;
  code?: string;
  kind?: 'percent' | 'fixed';
  value?: number;
  valid_from?: string | null;
  valid_until?: string | null;
  max_uses?: number | null;
  event_id?: number | null;
  session_id?: number | null;
  rate_id?: number | null;
  /** D75: false disables the voucher (withdrawn from live carts at their next change or confirm). */
  active?: boolean;
}

const invalid = (field: string, text: string) => invalidData({ [field]: [text] });

function optionalDate(value: string | null | undefined, field: string): Date | null | undefined {
  if (value === undefined) return undefined;
  if (!value) return null;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw invalid(field, 'must be a date and time (ISO 8601)');
  return d;
}

async function voucherPatch(db: Db, input: VoucherInput, organiserId: number, current?: VoucherRow) {
  const patch: Partial<VoucherRow> = {};
  if (input.code !== undefined || !current) {
    if (!input.code || !/^[A-Za-z0-9_-]{1,64}$/.test(input.code)) throw invalid('code', 'must be 1-64 of A-Z, 0-9, _ and -');
    patch.code = input.code.toUpperCase();
  }
  if (input.kind !== undefined || !current) {
    if (input.kind !== 'percent' && input.kind !== 'fixed') throw invalid('kind', 'must be percent or fixed');
    patch.kind = input.kind;
  }
  const kind = patch.kind ?? current!.kind;
  if (input.value !== undefined || !current || patch.kind !== undefined) {
    const value = input.value ?? (current!.kind === 'percent' ? current!.value / 100 : toAmount(current!.value));
    const minor = typeof value === 'number' && value > 0 ? toMinor(value) : null;
    if (minor === null || minor === 0) throw invalid('value', 'must be greater than 0 with at most two decimals');
    if (kind === 'percent' && minor > 10_000) throw invalid('value', 'a percentage cannot exceed 100');
    patch.value = minor;
  }
  const from = optionalDate(input.valid_from, 'valid_from');
  const until = optionalDate(input.valid_until, 'valid_until');
  if (from !== undefined) patch.validFrom = from;
  if (until !== undefined) patch.validUntil = until;
  const f = patch.validFrom !== undefined ? patch.validFrom : current?.validFrom;
  const u = patch.validUntil !== undefined ? patch.validUntil : current?.validUntil;
  if (f && u && u <= f) throw invalid('valid_until', 'must be after valid_from');
  if (input.max_uses !== undefined) {
    if (input.max_uses !== null && (!Number.isInteger(input.max_uses) || input.max_uses < 1)) throw invalid('max_uses', 'must be a whole number of at least 1');
    patch.maxUses = input.max_uses;
  }
  if (input.active !== undefined) patch.active = input.active;
  for (const [field, target, key] of [
    ['event_id', 'event', 'eventId'],
    ['session_id', 'session', 'sessionId'],
    ['rate_id', 'rate', 'rateId'],
  ] as const) {
    const id = input[field];
    if (id === undefined) continue;
    // Restricting to another organiser's record is "not found", as for any other foreign id.
    if (id !== null && (await repo.organiserOf(db, target, id)) !== organiserId) throw invalid(field, `no such ${target} of the voucher's organiser`);
    patch[key] = id;
  }
  return patch;
}

async function visibleVoucher(db: Db, actor: Actor, id: number): Promise<VoucherRow> {
  const row = await repo.findVoucher(db, id);
  if (!row || !canSee(actor, row.organiserId)) throw new AppError('not_found', 'Voucher not found');
  return row;
}

async function assertCodeFree(db: Db, organiserId: number, code: string, exceptId?: number) {
  const existing = await repo.voucherIdByCode(db, organiserId, code);
  if (existing !== null && existing !== exceptId) throw new AppError('conflict.voucher_code_taken', { code });
}

/** The events, sessions and rates a voucher of the actor may be limited to, by name (the dashboard's pickers). */
export async function voucherTargetsFor(ctx: AppContext, actor: Actor) {
  const rows = await repo.voucherTargets(ctx.db, organiserScope(actor));
  const events = new Map<number, string>();
  const sessions = new Map<number, { event_name: string; start_datetime: string }>();
  const rates: { id: number; name: string; event_name: string; start_datetime: string }[] = [];
  for (const r of rows) {
    events.set(Number(r.event_id), r.event_name || `event ${r.event_id}`);
    if (r.session_id === null || r.start_datetime === null) continue;
    const session = { event_name: r.event_name || `event ${r.event_id}`, start_datetime: isoWithOffset(new Date(r.start_datetime))! };
    sessions.set(Number(r.session_id), session);
    if (r.rate_id !== null) rates.push({ id: Number(r.rate_id), name: r.rate_name ?? '', ...session });
  }
  return {
    events: [...events].map(([id, name]) => ({ id, name })),
    sessions: [...sessions].map(([id, s]) => ({ id, ...s })),
    rates,
  };
}

/** Vouchers the actor may see, by code. */
export async function listVouchersFor(ctx: AppContext, actor: Actor): Promise<VoucherView[]> {
  return (await repo.listVouchers(ctx.db, organiserScope(actor))).map(voucherView);
}

export async function getVoucherFor(ctx: AppContext, actor: Actor, id: number): Promise<VoucherView> {
  return voucherView(await visibleVoucher(ctx.db, actor, id));
}

/** Creates a voucher for the actor's organiser (an admin names the organiser). */
export async function createVoucherAs(ctx: AppContext, actor: Actor, input: VoucherInput): Promise<VoucherView> {
  const organiserId = organiserForNew(actor, input.organiser_id);
  // An admin names the organiser: an unknown one is the request's fault, not a foreign-key failure.
  // (The dashboard's form posts a free-text field: anything that is not an id is unknown too.)
  const known = Number.isInteger(organiserId) && organiserId >= 1 && organiserId <= INT32_MAX && (await organiserExists(ctx.db, organiserId));
  if (!known) throw invalid('organiser_id', `unknown organiser ${organiserId}`);
  const patch = await voucherPatch(ctx.db, input, organiserId);
  const now = ctx.clock.now();
  return conflictOnDuplicate(() => new AppError('conflict.voucher_code_taken', { code: patch.code }), () => ctx.db.transaction(async (tx) => {
    await assertCodeFree(tx, organiserId, patch.code!);
    const row = await repo.insertVoucher(tx, { organiserId, code: patch.code!, kind: patch.kind!, value: patch.value!, ...patch, createdAt: now });
    await recordAudit(tx, { actor, action: 'voucher.create', targetType: 'voucher', targetId: row.id, organiserId, details: { ...input }, at: now });
    return voucherView(row);
  }));
}

/** Edits a voucher's code, value, validity, use limit or restriction. */
export async function updateVoucherAs(ctx: AppContext, actor: Actor, id: number, input: Omit<VoucherInput, 'organiser_id'>): Promise<VoucherView> {
  const current = await visibleVoucher(ctx.db, actor, id);
  const patch = await voucherPatch(ctx.db, input, current.organiserId, current);
  const now = ctx.clock.now();
  return conflictOnDuplicate(() => new AppError('conflict.voucher_code_taken', { code: patch.code }), () => ctx.db.transaction(async (tx) => {
    if (patch.code) await assertCodeFree(tx, current.organiserId, patch.code, id);
    const row = Object.keys(patch).length ? await repo.updateVoucher(tx, id, patch) : current;
    await recordAudit(tx, {
      actor,
      action: 'voucher.update',
      targetType: 'voucher',
      targetId: id,
      organiserId: current.organiserId,
      details: { from: voucherView(current), to: input },
      at: now,
    });
    return voucherView(row);
  }));
}

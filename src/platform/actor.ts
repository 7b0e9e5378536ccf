import type { UserRole } from '../db/schema/index.js';
import { AppError, invalidData } from '../http/errors.js';

/** Who is acting in the back office: a signed-in user, an admin API token's user, or the CLI. */
export interface Actor {
  userId: number | null;
  email: string;
  role: UserRole;
  /** The promoter's organiser; null for admins (they see every organiser). */
  organiserId: number | null;
}

/** The operator command line acts as an admin without an account. */
export const CLI_ACTOR: Actor = { userId: null, email: 'operator-cli', role: 'admin', organiserId: null };

/** The organiser a promoter is limited to, or null when the actor sees everything. */
export const organiserScope = (actor: Actor): number | null => (actor.role === 'admin' ? null : actor.organiserId);

/**
 * Whether the actor may see data of `organiserId`. Callers turn `false` into a 404 (never 403), so
 * that a promoter cannot tell another promoter's ids from ids that do not exist.
 */
export const canSee = (actor: Actor, organiserId: number): boolean =>
  actor.role === 'admin' || actor.organiserId === organiserId;

/** 403 for actions reserved to admins (accounts, organisers, catalogue import). */
export function requireAdmin(actor: Actor): void {
  if (actor.role !== 'admin') throw new AppError('forbidden', 'Only an admin may do this');
}

/**
 * The organiser a new record belongs to: a promoter's own (asking for another one is a 404, as if
 * it did not exist); an admin must name one.
 */
export function organiserForNew(actor: Actor, requested: number | undefined | null): number {
  if (actor.role === 'promoter') {
    if (requested != null && requested !== actor.organiserId) throw new AppError('not_found', 'Organiser not found');
    return actor.organiserId!;
  }
  if (requested == null) {
    throw invalidData({ organiser_id: ['is required for an admin'] });
  }
  return requested;
}

/** Whether a database error (possibly wrapped by Drizzle) is a unique-constraint violation. */
function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === '23505') return true;
  }
  return false;
}

/** Runs `work`; a unique violation from a concurrent insert becomes the 409 `conflict()` makes. */
export async function conflictOnDuplicate<T>(conflict: () => AppError, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict();
    throw err;
  }
}

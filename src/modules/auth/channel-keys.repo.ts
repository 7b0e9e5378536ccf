import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { serverKeys, widgetKeys } from '../../db/schema/index.js';
import type { CredentialScope } from '../../lib/integration-policy.js';

// A channel's keys of both kinds (D7, D39): same columns, one table each, stored only as hashes.
// The scope of a key is the scope of the tokens issued from it.
const TABLES = { widget: widgetKeys, server: serverKeys } as const;

/** One key row (hash and last four only: the plain key is never stored). */
export interface KeyRow {
  id: number;
  channelId: number;
  keyHash: string;
  lastFour: string;
  createdAt: Date;
  revokedAt: Date | null;
}

// Both tables have the same columns; the widget table's type stands for either in the queries.
const table = (scope: CredentialScope) => TABLES[scope] as typeof widgetKeys;

export async function insertKey(db: Db, scope: CredentialScope, channelId: number, keyHash: string, lastFour: string): Promise<KeyRow> {
  const [row] = await db.insert(table(scope)).values({ channelId, keyHash, lastFour }).returning();
  return row!;
}

/** Every key of one kind of a channel, live and revoked, oldest first. */
export async function listKeys(db: Db, scope: CredentialScope, channelId: number): Promise<KeyRow[]> {
  const t = table(scope);
  return db.select().from(t).where(eq(t.channelId, channelId)).orderBy(t.id);
}

/** One key of a channel; locked while revoking, so that a second revocation waits and then sees the first. */
export async function findKey(db: Db, scope: CredentialScope, channelId: number, keyId: number, opts: { lock?: boolean } = {}): Promise<KeyRow | null> {
  const t = table(scope);
  const query = db.select().from(t).where(and(eq(t.channelId, channelId), eq(t.id, keyId)));
  const rows = opts.lock ? await query.for('update') : await query;
  return rows[0] ?? null;
}

/** Revokes a live key of a channel; false when no such live key exists. */
export async function revokeKeyRow(db: Db, scope: CredentialScope, channelId: number, keyId: number, at: Date): Promise<boolean> {
  const t = table(scope);
  const rows = await db
    .update(t)
    .set({ revokedAt: at })
    .where(and(eq(t.id, keyId), eq(t.channelId, channelId), isNull(t.revokedAt)))
    .returning({ id: t.id });
  return rows.length > 0;
}

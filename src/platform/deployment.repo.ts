import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { deploymentSettings } from '../db/schema/index.js';

// The public address the serving process runs under, recorded for the command line (issue 16):
// an operator runs `orders:reserve` in a shell without the service's PORT or PUBLIC_BASE_URL, and
// the ticket links it prints and e-mails must still lead to the service.

const PUBLIC_BASE_URL = 'public_base_url';

/** Records the serving process's public address (every start: the last one to start wins). */
export async function recordPublicBaseUrl(db: Db, url: string, now: Date): Promise<void> {
  await db
    .insert(deploymentSettings)
    .values({ key: PUBLIC_BASE_URL, value: url, updatedAt: now })
    .onConflictDoUpdate({ target: deploymentSettings.key, set: { value: url, updatedAt: now } });
}

/** The public address the service last started with, or null if it never started on this database. */
export async function recordedPublicBaseUrl(db: Db): Promise<string | null> {
  const [row] = await db.select({ value: deploymentSettings.value }).from(deploymentSettings).where(eq(deploymentSettings.key, PUBLIC_BASE_URL));
  return row?.value ?? null;
}

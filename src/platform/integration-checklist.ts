import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/client.js';
import type { IntegrationMode } from '../db/schema/channels.js';
import { policyOf, type IntegrationStep } from '../lib/integration-policy.js';
import { isoWithOffset } from '../lib/time.js';
import type { DbTime } from '../db/instants.js';

/**
 * The pre-production integration checklist (docs/preproduction.md): the first time each channel
 * completes each step of its integration with a real call, recorded once in
 * `channel_integration_steps`. Nothing is recorded in production (an app registers its database
 * handle with `startIntegrationChecklist` only outside production). The steps of each model are
 * the `checklist` column of the integration policy.
 */

/** `token_rejected` is the first half of `token_renewed`: a revoked or expired token met a 401. */
export type RecordedStep = IntegrationStep | 'token_rejected';

/** What the dashboard and the B2B endpoint say of each step. */
const STEP_LABELS: Readonly<Record<IntegrationStep, string>> = {
  token_renewed: 'Token renewed after a 401',
  config_read: 'Channel configuration read',
  catalogue_read: 'Event list read',
  session_read: 'Session detail read',
  cart_built: 'Cart built (order created)',
  cart_emptied: 'Cart emptied (an item removed or the order cancelled)',
  voucher_applied: 'Voucher applied',
  voucher_removed: 'Voucher removed',
  order_expired: 'An order expired',
  confirm_exact_amount: 'Confirm with the exact amount',
  confirm_repeated: 'Confirm repeated (idempotent answer)',
  wrong_amount_refused: 'A wrong amount refused',
  report_read: 'Sales report read',
  webhook_verified: 'Webhook received and verified (2xx)',
};

/**
 * The database handles of the apps that record, each with the steps this process already knows are
 * recorded: after the first time, a step costs a set lookup, no query. A handle never registered
 * (a production app's) records nothing.
 */
const recorders = new WeakMap<Db, Set<string>>();

/** Records from now on through `db` (buildApp, outside production). */
export function startIntegrationChecklist(db: Db): void {
  if (!recorders.has(db)) recorders.set(db, new Set());
}

/** True when steps through `db` are recorded: callers skip the work of finding a step otherwise. */
export const integrationChecklistRecording = (db: Db): boolean => recorders.has(db);

/**
 * Records that the channel completed `step`, once: the first completion keeps its time. Call it
 * with the app's database handle (`ctx.db`), after the call that completed the step succeeded; the
 * webhook delivery worker calls it with 'webhook_verified' on a 2xx answer. Nothing in production.
 */
export async function recordIntegrationStep(db: Db, channelId: number, step: RecordedStep, at: Date = new Date()): Promise<void> {
  const known = recorders.get(db);
  const key = `${channelId}:${step}`;
  if (!known || known.has(key)) return;
  known.add(key);
  try {
    await db.execute(
      sql`INSERT INTO channel_integration_steps (channel_id, step, completed_at) VALUES (${channelId}, ${step}, ${at})
          ON CONFLICT DO NOTHING`,
    );
  } catch (err) {
    known.delete(key); // the next completion tries again
    throw err;
  }
}

/**
 * A token was issued to the channel: that is `token_renewed` when one of its tokens met a 401
 * before (`token_rejected`). One statement, so that two instances need not agree on anything.
 */
export async function recordTokenIssued(db: Db, channelId: number, at: Date): Promise<void> {
  const known = recorders.get(db);
  const key = `${channelId}:token_renewed`;
  // Only after this process saw one of the channel's tokens refused: otherwise every token of a
  // busy pre-production channel would pay a statement. A renewal that reaches another instance of a
  // fleet than the 401 did is counted at the next refusal and renewal.
  if (!known || known.has(key) || !known.has(`${channelId}:token_rejected`)) return;
  const rows = await queryRows<{ step: string }>(
    db,
    sql`INSERT INTO channel_integration_steps (channel_id, step, completed_at)
        SELECT ${channelId}, 'token_renewed', ${at}
        WHERE EXISTS (SELECT 1 FROM channel_integration_steps WHERE channel_id = ${channelId} AND step = 'token_rejected')
        ON CONFLICT DO NOTHING
        RETURNING step`,
  );
  // Not recorded yet: the statement's next run decides again. Recorded (now or before): done.
  if (rows.length > 0) known.add(key);
}

interface ChecklistItem {
  step: IntegrationStep;
  label: string;
  /** ISO 8601 with offset (D12); null while open. */
  completed_at: string | null;
}

export interface IntegrationChecklist {
  model: 'A' | 'B' | 'C' | 'D';
  /** Whether this deployment records steps (false in production). */
  recording: boolean;
  steps: ChecklistItem[];
  /** Every step of the model is completed. */
  ready_to_go_live: boolean;
}

/** The checklist of one channel: the steps of its model with the time each was first completed. */
export async function readIntegrationChecklist(db: Db, channel: { id: number; integrationMode: IntegrationMode }): Promise<IntegrationChecklist> {
  const policy = policyOf(channel.integrationMode);
  const rows = await queryRows<{ step: string; completed_at: DbTime }>(
    db,
    sql`SELECT step, completed_at FROM channel_integration_steps WHERE channel_id = ${channel.id}`,
  );
  const done = new Map(rows.map((r) => [r.step, isoWithOffset(new Date(r.completed_at))]));
  const steps = policy.checklist.map((step) => ({ step, label: STEP_LABELS[step], completed_at: done.get(step) ?? null }));
  return {
    model: policy.model,
    recording: integrationChecklistRecording(db),
    steps,
    ready_to_go_live: steps.every((s) => s.completed_at !== null),
  };
}

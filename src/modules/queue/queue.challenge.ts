import { createChallenge, verifySolution, type Challenge, type Payload } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import type { AppContext } from '../../app-context.js';
import { hmac } from '../../lib/secrets.js';
import type { QueueStore } from './queue.store.js';

// The optional proof of work at join (D60, `challenge: proof_of_work`): ALTCHA's open protocol
// (altcha-lib, self-hosted: no outside service). The browser solves a challenge that costs it a
// fraction of a second; a script that wants ten thousand places in the queue pays ten thousand
// times. Each challenge names its session, expires after CHALLENGE_TTL_MS and is accepted once.

const ALGORITHM = 'SHA-256';
/** Iterations of SHA-256 per attempt; about 256 attempts find the default key prefix. */
const CHALLENGE_COST = 1000;
const CHALLENGE_TTL_MS = 10 * 60_000;

const secretOf = (ctx: AppContext) => hmac(ctx.config.signingSecret, 'queue-challenge-v1');

/** A new challenge for a join of the session's queue. */
export async function newChallenge(ctx: AppContext, sessionId: number): Promise<Challenge> {
  return createChallenge({
    algorithm: ALGORITHM,
    cost: CHALLENGE_COST,
    deriveKey,
    hmacSignatureSecret: secretOf(ctx),
    expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
    data: { session_id: sessionId },
  });
}

/** Why the solution is refused, or null when it is good (and now used). */
export async function verifyChallenge(ctx: AppContext, store: QueueStore, sessionId: number, solution: string | undefined): Promise<string | null> {
  if (!solution) return 'send challenge_solution (GET .../challenge, then solve it)';
  let payload: Payload;
  try {
    payload = JSON.parse(Buffer.from(solution, 'base64').toString('utf8')) as Payload;
  } catch {
    return 'challenge_solution is not a base64 JSON payload';
  }
  if (!payload?.challenge?.parameters || !payload.solution) return 'challenge_solution is not a solved challenge';
  if (payload.challenge.parameters.data?.session_id !== sessionId) return 'the challenge is for another session';
  const result = await verifySolution({ challenge: payload.challenge, solution: payload.solution, deriveKey, hmacSignatureSecret: secretOf(ctx) }).catch(() => null);
  if (!result?.verified) return result?.expired ? 'the challenge has expired' : 'the solution is wrong';
  if (!(await store.once(`challenge:${payload.challenge.parameters.nonce}`, CHALLENGE_TTL_MS))) return 'the challenge was used already';
  return null;
}

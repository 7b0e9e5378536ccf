// Completed sales for the audience tests: carts made by the checkout fixtures, closed through the
// B2B confirm as a channel's server would (the real closing process: customers, tickets, e-mails).
import { expect } from 'vitest';
import { bearer, buildTestApp, DEMO, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { account, api, setUpOtherOrganiser } from '../admin/admin-helpers.js';
import { confirmUrl, createPendingOrder, type PendingOrderOptions } from '../checkout/fixtures.js';

export interface Buyer {
  name: string;
  surname: string;
  email: string;
  phone?: string;
}

export interface Sale {
  orderId: number;
  token: string;
  reference: string;
  sessionId: number;
  total: number;
}

const tokens = new Map<string, string>();

/** A channel's token that may confirm: widget key for A and B (SPEC), server key for C and D (D40). */
async function confirmingToken(t: TestApp, channel: keyof typeof DEMO): Promise<string> {
  const key = `${channel}`;
  if (!tokens.has(key)) {
    const demo = DEMO[channel];
    tokens.set(key, channel === 'a' || channel === 'b' ? await tokenFor(t.app, demo.slug, demo.key) : await serverTokenFor(t.app, demo.slug, demo.serverKey));
  }
  return tokens.get(key)!;
}

/** Forgets the cached tokens (a new test app has its own). */
export const forgetTokens = () => tokens.clear();

/**
 * A new test app for an audience file: root's admin API (and its token), and the API of organiser
 * B's promoter, who must never see the demo organiser's buyers.
 */
export async function audienceApp() {
  const t = await buildTestApp();
  forgetTokens();
  const adminToken = (await account(t.ctx, 'root@taquilla.test')).token;
  const admin = api(t.app, adminToken);
  const { promoterB } = await setUpOtherOrganiser(t.ctx, t.app, admin);
  return { t, admin, adminToken, promoterB };
}

/** Sells `seats` seats of a demo session to `buyer` through `channel`'s confirm. */
export async function sell(t: TestApp, channel: keyof typeof DEMO, buyer: Buyer, opts: Partial<PendingOrderOptions> = {}): Promise<Sale> {
  const o = await createPendingOrder(t.ctx, { channel: DEMO[channel].slug, ...opts });
  const res = await t.app.inject({
    method: 'POST',
    url: confirmUrl(DEMO[channel].slug, o.token, 'confirm', opts.lang ?? 'es'),
    headers: bearer(await confirmingToken(t, channel)),
    payload: { ...buyer, amount: o.total / 100 },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { orderId: o.id, token: o.token, reference: o.reference, sessionId: o.sessionId, total: o.total };
}

import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { importSPKI, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { refundOrderAs } from '../../src/modules/checkout/order-actions.service.js';
import { syncGoogleObjects } from '../../src/modules/tickets/google-wallet-sync.js';
import { reissueTicket, verifiedClaims } from '../../src/modules/tickets/ticket-keys.service.js';
import { orderTicketLinks } from '../../src/modules/tickets/tickets.service.js';
import { CLI_ACTOR } from '../../src/platform/actor.js';
import { buildTestApp, type TestApp } from '../helpers.js';
import { paidByCard } from './wallet-fixtures.js';

// Google Wallet objects follow their tickets (D70, docs/wallet.md "Google Wallet") with a configured
// issuer: a real local HTTP peer stands for Google's token endpoint and Wallet REST API.

interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const ISSUER = '3388000000012345678';
const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const SERVICE_ACCOUNT = JSON.stringify({ type: 'service_account', client_email: 'wallet@project.iam.gserviceaccount.com', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }) });

let t: TestApp;
let server: http.Server;
let base = '';
const seen: Seen[] = [];
let patchAnswer = 200;
const quiet = { warn() {} };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method!, path: req.url!, headers: req.headers, body });
      if (req.url === '/token') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: 'ya29.test-token', expires_in: 3600, token_type: 'Bearer' }));
        return;
      }
      res.writeHead(patchAnswer, { 'content-type': 'application/json' });
      res.end(JSON.stringify(patchAnswer === 200 ? { id: 'x' } : { error: { code: patchAnswer } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await buildTestApp({
    env: {
      PORTAL_RATE_LIMIT_PER_MINUTE: '1000',
      GOOGLE_WALLET_ISSUER_ID: ISSUER,
      GOOGLE_WALLET_SERVICE_ACCOUNT: SERVICE_ACCOUNT,
      GOOGLE_WALLET_API_URL: `${base}/walletobjects/v1`,
      GOOGLE_OAUTH_TOKEN_URL: `${base}/token`,
    },
  });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The buyer taps "Add to Google Wallet": the save link is handed out (and the object remembered). */
async function saveToGoogle(orderId: number) {
  const [link] = await orderTicketLinks(t.ctx, orderId);
  const u = new URL(link!.googleWalletUrl!);
  const res = await t.app.inject({ url: `${u.pathname}${u.search}` });
  expect(res.statusCode).toBe(302);
}

const patches = () => seen.filter((s) => s.method === 'PATCH');

/** Sends whatever updates are pending, then forgets the requests the fake Google saw. */
async function syncAndForget() {
  await syncGoogleObjects(t.ctx, quiet);
  seen.length = 0;
}

describe('Google Wallet object updates', () => {
  it('a refund PATCHes the object INACTIVE once, with a service-account token; a failure is retried later with backoff', async () => {
    await syncAndForget();
    const o = await paidByCard(t, 1);
    const notSaved = await paidByCard(t, 1);
    await saveToGoogle(o.id);
    expect(await syncGoogleObjects(t.ctx, quiet)).toEqual({ sent: 0, failed: 0 });

    await refundOrderAs(t.ctx, CLI_ACTOR, o.reference, 'google test');
    await refundOrderAs(t.ctx, CLI_ACTOR, notSaved.reference, 'google test');
    patchAnswer = 503;
    expect(await syncGoogleObjects(t.ctx, quiet)).toEqual({ sent: 0, failed: 1 });
    const [row] = await queryRows<{ attempts: number; last_error: string }>(t.ctx.db, sql`SELECT attempts, last_error FROM google_wallet_objects WHERE ticket_id = ${o.tickets[0]!.id}`);
    expect(row).toMatchObject({ attempts: 1, last_error: expect.stringContaining('503') });
    // not due again before the backoff has passed
    patchAnswer = 200;
    expect(await syncGoogleObjects(t.ctx, quiet)).toEqual({ sent: 0, failed: 0 });
    t.clock.advance(31_000);
    expect(await syncGoogleObjects(t.ctx, quiet)).toEqual({ sent: 1, failed: 0 });
    expect(await syncGoogleObjects(t.ctx, quiet)).toEqual({ sent: 0, failed: 0 });

    const [failedTry, ok] = patches();
    expect(failedTry!.path).toBe(`/walletobjects/v1/eventTicketObject/${ISSUER}.ticket-${o.tickets[0]!.id}`);
    expect(ok!.path).toBe(failedTry!.path);
    expect(ok!.headers.authorization).toBe('Bearer ya29.test-token');
    expect(JSON.parse(ok!.body)).toEqual({ state: 'INACTIVE' });
    expect(patches()).toHaveLength(2); // the ticket never saved to Google is not patched

    // the token request: a JWT bearer grant signed by the service account's key
    const tokenRequests = seen.filter((s) => s.path === '/token');
    expect(tokenRequests.length).toBeGreaterThanOrEqual(1);
    const form = new URLSearchParams(tokenRequests[0]!.body);
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const spki = await importSPKI(publicKey.export({ type: 'spki', format: 'pem' }) as string, 'RS256');
    const { payload } = await jwtVerify(form.get('assertion')!, spki, { issuer: 'wallet@project.iam.gserviceaccount.com', audience: `${base}/token` });
    expect(payload.scope).toBe('https://www.googleapis.com/auth/wallet_object.issuer');
  });

  it('a reissue PATCHes the object with the new barcode (ACTIVE); a 404 (never saved) counts as done', async () => {
    await syncAndForget();
    const o = await paidByCard(t, 1);
    await saveToGoogle(o.id);
    await reissueTicket(t.ctx, o.tickets[0]!.id, null);
    expect(await syncGoogleObjects(t.ctx, quiet)).toEqual({ sent: 1, failed: 0 });
    const body = JSON.parse(patches()[0]!.body) as { state: string; ticketNumber: string; barcode: { type: string; value: string } };
    const [row] = await queryRows<{ code: string }>(t.ctx.db, sql`SELECT code FROM tickets WHERE id = ${o.tickets[0]!.id}`);
    expect(body).toMatchObject({ state: 'ACTIVE', ticketNumber: row!.code, barcode: { type: 'QR_CODE' } });
    expect(await verifiedClaims(t.ctx, body.barcode.value)).toMatchObject({ ticketId: o.tickets[0]!.id, issueVersion: 2 });

    const o2 = await paidByCard(t, 1);
    await saveToGoogle(o2.id);
    await refundOrderAs(t.ctx, CLI_ACTOR, o2.reference, 'google test');
    patchAnswer = 404;
    try {
      expect(await syncGoogleObjects(t.ctx, quiet)).toEqual({ sent: 1, failed: 0 });
      expect(await syncGoogleObjects(t.ctx, quiet)).toEqual({ sent: 0, failed: 0 });
    } finally {
      patchAnswer = 200;
    }
  });

  it('a moved session (D74) updates its valid tickets\' passes: the object, and its class\'s dateTime once', async () => {
    await syncAndForget();
    const o = await paidByCard(t, 2);
    const refunded = await paidByCard(t, 1);
    await saveToGoogle(o.id);
    await saveToGoogle(refunded.id);
    await refundOrderAs(t.ctx, CLI_ACTOR, refunded.reference, 'google test');
    await syncAndForget();
    const passVersions = async () =>
      new Map(
        (await queryRows<{ id: string | number; v: Date | string }>(t.ctx.db, sql`SELECT id, COALESCE(pass_updated_at, issued_at) AS v FROM tickets WHERE order_id IN (${o.id}, ${refunded.id})`)).map(
          (r) => [Number(r.id), new Date(r.v).getTime()],
        ),
      );
    const before = await passVersions();
    const [session] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT session_id AS id FROM order_items WHERE order_id = ${o.id} LIMIT 1`);
    const [sameSession] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(DISTINCT session_id)::int AS n FROM order_items WHERE order_id IN (${o.id}, ${refunded.id})`);
    expect(sameSession!.n).toBe(1);
    await t.ctx.db.execute(sql`UPDATE sessions SET start_datetime = start_datetime + interval '2 hours' WHERE id = ${session!.id}`);
    const after = await passVersions();
    // The valid tickets' passes moved (Apple devices are pushed for them); the refunded one's did not.
    for (const ticket of o.tickets) expect(after.get(ticket.id)!).toBeGreaterThan(before.get(ticket.id)!);
    expect(after.get(refunded.tickets[0]!.id)).toBe(before.get(refunded.tickets[0]!.id));

    expect(await syncGoogleObjects(t.ctx, quiet)).toEqual({ sent: 2, failed: 0 });
    const [startRow] = await queryRows<{ start: Date | string }>(t.ctx.db, sql`SELECT start_datetime AS start FROM sessions WHERE id = ${session!.id}`);
    const classPatches = patches().filter((p) => p.path.includes('/eventTicketClass/'));
    expect(classPatches.map((p) => p.path)).toEqual([`/walletobjects/v1/eventTicketClass/${ISSUER}.session-${session!.id}`]);
    const dateTime = (JSON.parse(classPatches[0]!.body) as { dateTime: { start: string } }).dateTime;
    expect(new Date(dateTime.start).getTime()).toBe(new Date(startRow!.start).getTime());
    expect(patches().filter((p) => p.path.includes('/eventTicketObject/'))).toHaveLength(2);
    // In step now: nothing more to send.
    expect(await syncGoogleObjects(t.ctx, quiet)).toEqual({ sent: 0, failed: 0 });
  });

  it('the job is scheduled with a configured issuer', () => {
    expect(t.app.scheduler.jobNames).toContain('google-wallet-sync');
    expect(t.app.scheduler.jobNames).toContain('wallet-push');
  });
});

import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { refundOrderAs } from '../../src/modules/checkout/order-actions.service.js';
import { apnsPushSender, type PassPushSender } from '../../src/modules/tickets/apple-push.js';
import { pushPassUpdates } from '../../src/modules/tickets/apple-pass-service.js';
import { reissueTicket, verifiedClaims } from '../../src/modules/tickets/ticket-keys.service.js';
import { orderTicketLinks } from '../../src/modules/tickets/tickets.service.js';
import { appleSigner, passAuthenticationToken } from '../../src/modules/tickets/wallet.service.js';
import { CLI_ACTOR } from '../../src/platform/actor.js';
import { buildTestApp, isPostgres, type TestApp } from '../helpers.js';
import { paidByCard, unzip } from './wallet-fixtures.js';

// The Apple pass web service (D70, docs/wallet.md "Passes already in a wallet"), as a device uses
// it: register with the pass's authenticationToken, list the serials updated since a tag, fetch
// the latest pass with If-Modified-Since; a refund or reissue makes the pass listed and fetched anew.

let t: TestApp;
const BASE = '/api/wallet/apple/v1';
const quiet = { info() {}, warn() {} };

beforeAll(async () => {
  t = await buildTestApp({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '1000' } });
}, 120_000);
afterAll(() => t?.close());

interface PassJson {
  serialNumber: string;
  passTypeIdentifier: string;
  webServiceURL: string;
  authenticationToken: string;
  voided: boolean;
  barcodes: { message: string; altText: string }[];
}
const passOf = (payload: Buffer) => JSON.parse(unzip(payload).get('pass.json')!.toString('utf8')) as PassJson;

/** The pass a buyer saves from the order page: what a device learns the web service from. */
async function savedPass(orderId: number, index = 0): Promise<PassJson> {
  const links = await orderTicketLinks(t.ctx, orderId);
  const u = new URL(links[index]!.appleWalletUrl!);
  const res = await t.app.inject({ url: `${u.pathname}${u.search}` });
  expect(res.statusCode).toBe(200);
  return passOf(res.rawPayload);
}

/** An order of two tickets paid by card, with both passes saved. */
async function twoSavedPasses() {
  const o = await paidByCard(t, 2);
  return { o, passes: [await savedPass(o.id, 0), await savedPass(o.id, 1)] as const };
}

/** A device: its library identifier and push token, speaking the protocol to the service. */
function device(name: string) {
  const id = `device-${name}-${Math.random().toString(36).slice(2)}`;
  const pushToken = `push-${name}-${Math.random().toString(16).slice(2)}`;
  const auth = (pass: PassJson) => ({ authorization: `ApplePass ${pass.authenticationToken}` });
  return {
    id,
    pushToken,
    register: (pass: PassJson, headers = auth(pass)) =>
      t.app.inject({ method: 'POST', url: `${BASE}/devices/${id}/registrations/${pass.passTypeIdentifier}/${pass.serialNumber}`, headers, payload: { pushToken } }),
    unregister: (pass: PassJson) => t.app.inject({ method: 'DELETE', url: `${BASE}/devices/${id}/registrations/${pass.passTypeIdentifier}/${pass.serialNumber}`, headers: auth(pass) }),
    list: (passTypeId: string, tag?: string) =>
      t.app.inject({ url: `${BASE}/devices/${id}/registrations/${passTypeId}${tag === undefined ? '' : `?passesUpdatedSince=${encodeURIComponent(tag)}`}` }),
    fetch: (pass: PassJson, ifModifiedSince?: string) =>
      t.app.inject({ url: `${BASE}/passes/${pass.passTypeIdentifier}/${pass.serialNumber}`, headers: { ...auth(pass), ...(ifModifiedSince ? { 'if-modified-since': ifModifiedSince } : {}) } }),
  };
}

describe('pass.json', () => {
  it('names the web service under PUBLIC_BASE_URL and carries a per-pass authentication token', async () => {
    const { o, passes: [a, b] } = await twoSavedPasses();
    expect(a.webServiceURL).toBe('http://taquilla.test/api/wallet/apple');
    expect(a.authenticationToken.length).toBeGreaterThanOrEqual(16);
    expect(a.authenticationToken).not.toBe(b.authenticationToken);
    expect(a.serialNumber).toBe(`ticket-${o.tickets[0]!.id}`);
  });
});

describe('registration', () => {
  it('401 without or with a wrong token (another pass\'s too), 201 the first time, 200 after, 404 for another pass type', async () => {
    const { passes: [pass, other] } = await twoSavedPasses();
    const d = device('reg');
    for (const headers of [{}, { authorization: 'ApplePass wrong-token-of-some-length' }, { authorization: `ApplePass ${other.authenticationToken}` }, { authorization: `Bearer ${pass.authenticationToken}` }]) {
      const res = await d.register(pass, headers as { authorization: string });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ status: 401, success: false, code: 'invalid_token' });
    }
    expect((await d.register(pass)).statusCode).toBe(201);
    expect((await d.register(pass)).statusCode).toBe(200);
    const wrongType = await d.register({ ...pass, passTypeIdentifier: 'pass.com.example.other' });
    expect(wrongType.statusCode).toBe(404);
    expect(wrongType.json()).toMatchObject({ status: 404, success: false, code: 'not_found' });
    // a serial that is no ticket, with a token made for it by this deployment: 404, not a 500
    const ghost = await d.register({ ...pass, serialNumber: 'ticket-999999999' }, { authorization: `ApplePass ${passAuthenticationToken(t.ctx.config, 'ticket-999999999')}` });
    expect(ghost.json()).toMatchObject({ status: 404, success: false, code: 'not_found' });
  });

  it('parallel registrations of one device and pass: exactly one 201', async () => {
    const o = await paidByCard(t, 1);
    const pass = await savedPass(o.id);
    const d = device('parallel');
    const codes = (await Promise.all(Array.from({ length: isPostgres ? 8 : 4 }, () => d.register(pass)))).map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c === 200)).toHaveLength(codes.length - 1);
  });

  it('unregistering stops the listing; an unknown device lists nothing (204)', async () => {
    const o = await paidByCard(t, 1);
    const pass = await savedPass(o.id);
    const d = device('unreg');
    expect((await d.register(pass)).statusCode).toBe(201);
    const listed = await d.list(pass.passTypeIdentifier);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().serialNumbers).toEqual([pass.serialNumber]);
    const gone = await d.unregister(pass);
    expect(gone.statusCode).toBe(200);
    expect((await d.list(pass.passTypeIdentifier)).statusCode).toBe(204);
    expect((await device('nobody').list(pass.passTypeIdentifier)).statusCode).toBe(204);
    expect((await d.unregister({ ...pass, authenticationToken: 'x'.repeat(43) })).statusCode).toBe(401);
  });
});

/**
 * A listing's tag once nothing is listed since it (204). The tag is the oldest transaction still
 * running on the whole server (snapshotFloor): a transaction of another database that began before
 * the tickets changed keeps them listed (200, harmless to a device, whose fetch then answers 304).
 * So the listing is taken again until no such transaction runs; alone on the server, at once.
 */
async function settledTag(d: ReturnType<typeof device>, passTypeId: string): Promise<string> {
  let tag = '';
  await expect
    .poll(
      async () => {
        tag = (await d.list(passTypeId)).json().lastUpdated as string;
        return (await d.list(passTypeId, tag)).statusCode;
      },
      { timeout: 20_000 },
    )
    .toBe(204);
  return tag;
}

describe('updates', () => {
  it('a refund: the serial is listed as updated since the tag, and fetching it returns the voided pass; then 304', async () => {
    const { o, passes: [pass, untouched] } = await twoSavedPasses();
    const d = device('refund');
    expect((await d.register(pass)).statusCode).toBe(201);
    expect((await d.register(untouched)).statusCode).toBe(201);

    const first = await d.fetch(pass);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('application/vnd.apple.pkpass');
    expect(passOf(first.rawPayload).voided).toBe(false);
    const lastModified = first.headers['last-modified'] as string;
    expect(new Date(lastModified).toUTCString()).toBe(lastModified);
    expect((await d.fetch(pass, lastModified)).statusCode).toBe(304);

    const all = await d.list(pass.passTypeIdentifier);
    expect(all.json().serialNumbers.sort()).toEqual([pass.serialNumber, untouched.serialNumber].sort());
    expect(all.json().lastUpdated).toMatch(/^\d+$/);
    const tag = await settledTag(d, pass.passTypeIdentifier);

    await refundOrderAs(t.ctx, CLI_ACTOR, o.reference, 'wallet web service test', { ticketIds: [o.tickets[0]!.id] });

    const updated = await d.list(pass.passTypeIdentifier, tag);
    expect(updated.statusCode).toBe(200);
    expect(updated.json().serialNumbers).toEqual([pass.serialNumber]);
    const voided = await d.fetch(pass, lastModified);
    expect(voided.statusCode).toBe(200);
    const latest = passOf(voided.rawPayload);
    expect(latest).toMatchObject({ serialNumber: pass.serialNumber, voided: true });
    const newModified = voided.headers['last-modified'] as string;
    expect(Date.parse(newModified)).toBeGreaterThan(Date.parse(lastModified));
    expect((await d.fetch(pass, newModified)).statusCode).toBe(304);
    // the untouched ticket's pass is not modified
    expect((await d.fetch(untouched, lastModified)).statusCode).toBe(304);
    await settledTag(d, pass.passTypeIdentifier);
    // wrong token on the fetch: 401
    expect((await d.fetch({ ...pass, authenticationToken: untouched.authenticationToken })).statusCode).toBe(401);
  });

  it('a reissue (D70): same serial, listed as updated, the latest pass carries the new code and secret; the old link is gone', async () => {
    const o = await paidByCard(t, 1);
    const [oldLink] = await orderTicketLinks(t.ctx, o.id);
    const pass = await savedPass(o.id);
    const d = device('reissue');
    expect((await d.register(pass)).statusCode).toBe(201);
    const first = await d.fetch(pass);
    const tag = (await d.list(pass.passTypeIdentifier)).json().lastUpdated as string;

    await reissueTicket(t.ctx, o.tickets[0]!.id, null);
    const [reissued] = await queryRows<{ code: string }>(t.ctx.db, sql`SELECT code FROM tickets WHERE id = ${o.tickets[0]!.id}`);
    const newCode = reissued!.code;
    expect(newCode).not.toBe(o.tickets[0]!.code);

    expect((await d.list(pass.passTypeIdentifier, tag)).json().serialNumbers).toEqual([pass.serialNumber]);
    const res = await d.fetch(pass, first.headers['last-modified'] as string);
    expect(res.statusCode).toBe(200);
    const latest = passOf(res.rawPayload);
    expect(latest.voided).toBe(false);
    expect(latest.barcodes[0]!.altText).toBe(newCode);
    expect(latest.barcodes[0]!.message).not.toBe(pass.barcodes[0]!.message);
    expect(await verifiedClaims(t.ctx, latest.barcodes[0]!.message)).toMatchObject({ ticketId: o.tickets[0]!.id, issueVersion: 2 });
    // the token stays valid (the serial is the ticket id), and the old link (old code) is gone
    expect(latest.authenticationToken).toBe(pass.authenticationToken);
    const u = new URL(oldLink!.appleWalletUrl!);
    expect((await t.app.inject({ url: `${u.pathname}${u.search}` })).json()).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('the log endpoint takes device messages', async () => {
    const res = await t.app.inject({ method: 'POST', url: `${BASE}/log`, payload: { logs: ['Web service error for pass.org.taquilla.development: something'] } });
    expect(res.statusCode).toBe(200);
  });
});

describe('pushes', () => {
  /** A sender that records pushes (APNs is Apple's, unreachable here), answering as told. */
  function recorder(answer: () => 'sent' | 'gone' | Error = () => 'sent') {
    const pushes: { token: string; topic: string }[] = [];
    const sender: PassPushSender = {
      describe: 'test',
      async push(token, topic) {
        pushes.push({ token, topic });
        const a = answer();
        if (a instanceof Error) throw a;
        return a;
      },
    };
    return { pushes, sender };
  }

  it('a refund pushes once to each registered device; a failed push is retried; a gone token loses its registrations', async () => {
    // settle what other tests left pending
    await pushPassUpdates(t.ctx, recorder().sender, quiet);
    const o = await paidByCard(t, 1);
    const pass = await savedPass(o.id);
    const a = device('push-a');
    const b = device('push-b');
    await a.register(pass);
    await b.register(pass);
    const idle = recorder();
    await pushPassUpdates(t.ctx, idle.sender, quiet);
    expect(idle.pushes).toEqual([]);

    await refundOrderAs(t.ctx, CLI_ACTOR, o.reference, 'push test');
    let failing = true;
    const flaky = recorder(() => (failing ? new Error('APNs unreachable') : 'sent'));
    expect(await pushPassUpdates(t.ctx, flaky.sender, quiet)).toEqual({ sent: 0, failed: 2 });
    failing = false;
    expect(await pushPassUpdates(t.ctx, flaky.sender, quiet)).toEqual({ sent: 2, failed: 0 });
    expect(flaky.pushes.slice(2).map((p) => p.token).sort()).toEqual([a.pushToken, b.pushToken].sort());
    const passTypeId = (await appleSigner(t.ctx))!.passTypeId;
    expect(flaky.pushes.every((p) => p.topic === passTypeId)).toBe(true);
    expect(await pushPassUpdates(t.ctx, flaky.sender, quiet)).toEqual({ sent: 0, failed: 0 });

    // the ticket changes again (a reissue cannot: it is void; another ticket of device a's), APNs says a's token is gone
    const o2 = await paidByCard(t, 1);
    const pass2 = await savedPass(o2.id);
    await a.register(pass2);
    await reissueTicket(t.ctx, o2.tickets[0]!.id, null);
    const gone = recorder(() => 'gone');
    await pushPassUpdates(t.ctx, gone.sender, quiet);
    expect(gone.pushes.map((p) => p.token)).toEqual([a.pushToken]);
    expect((await a.list(pass.passTypeIdentifier)).statusCode).toBe(204);
    expect((await b.list(pass.passTypeIdentifier)).json().serialNumbers).toEqual([pass.serialNumber]);
  });

  it('the APNs sender posts an empty notification to /3/device/<token> with the pass type as topic (a local HTTP/2 peer)', async () => {
    const seen: { path: string; topic: string; body: string }[] = [];
    let answer = 200;
    const server = http2.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        seen.push({ path: req.headers[':path'] as string, topic: req.headers['apns-topic'] as string, body });
        res.writeHead(answer, { 'content-type': 'application/json' });
        res.end(answer === 200 ? '' : JSON.stringify({ reason: answer === 410 ? 'Unregistered' : 'BadDeviceToken' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const signer = (await appleSigner(t.ctx))!;
      const sender = apnsPushSender(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, signer);
      expect(await sender.push('abc123', 'pass.org.example.tickets')).toBe('sent');
      expect(seen[0]).toEqual({ path: '/3/device/abc123', topic: 'pass.org.example.tickets', body: '{}' });
      answer = 410;
      expect(await sender.push('abc123', 'pass.org.example.tickets')).toBe('gone');
      answer = 400;
      await expect(sender.push('abc123', 'pass.org.example.tickets')).rejects.toThrow(/APNs answered 400/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { rotateSigningKey, withdrawSigningKey, qrSecretOf } from '../../src/modules/tickets/ticket-keys.service.js';
import { decryptPrivateKey, parseSecret } from '../../src/modules/tickets/ticket-secrets.js';
import { ticketsOfOrder } from '../../src/modules/tickets/tickets.repo.js';
import { CLI_ACTOR } from '../../src/platform/actor.js';
import { refundOrderAs } from '../../src/modules/checkout/order-actions.service.js';
import { reissueTicketAs } from '../../src/modules/checkin/checkin-admin.service.js';
import { buildTestApp, type TestApp } from '../helpers.js';
import { device, makeGate, openDoor, sellTickets } from './checkin-helpers.js';

// The deployment's signing keys (D53): made on first start, kept encrypted, rotated without
// stopping the tickets already issued; the secret a ticket's QR holds.

let t: TestApp;
let sessionId: number;
let listId: number;
let gate: ReturnType<typeof device>;

beforeAll(async () => {
  t = await buildTestApp();
  ({ sessionId, listId } = await openDoor(t, 'Door'));
  gate = await makeGate(t, 'Gate', [listId]);
}, 120_000);
afterAll(() => t?.close());

const keys = () => queryRows<{ kid: string; public_key: string; private_key_enc: string; retired_at: Date | null }>(t.ctx.db, sql`SELECT * FROM ticket_signing_keys ORDER BY created_at`);

describe('the signing key', () => {
  it('exists from the first start, its private key encrypted under SIGNING_SECRET', async () => {
    const [key] = await keys();
    expect(key!.kid).toMatch(/^[0-9a-f]{8}$/);
    expect(key!.private_key_enc).not.toMatch(/PRIVATE KEY/);
    const pk = decryptPrivateKey(key!.private_key_enc, key!.kid, t.config.signingSecret);
    expect(pk.asymmetricKeyType).toBe('ed25519');
    expect(() => decryptPrivateKey(key!.private_key_enc, key!.kid, 'another-secret-of-at-least-32-characters')).toThrow();
    // Bound to its kid: moved under another id it does not open.
    expect(() => decryptPrivateKey(key!.private_key_enc, '00000000', t.config.signingSecret)).toThrow();
  });

  it("a ticket's secret is the contract's format: tq2.kid.payload.signature over ticket, session, version", async () => {
    const { tickets, order } = await sellTickets(t, { sessionId });
    const parsed = parseSecret(tickets[0]!.secret)!;
    expect(parsed).toMatchObject({ ticketId: tickets[0]!.id, sessionId, issueVersion: 1, kid: (await keys())[0]!.kid });
    const [, kid, payload, signature] = tickets[0]!.secret.split('.');
    expect(Buffer.from(payload!, 'base64url').toString()).toBe(`${tickets[0]!.id}:${sessionId}:1`);
    // What a browser does with WebCrypto: import the raw public key, verify the bytes before the last dot.
    const raw = Buffer.from((await keys())[0]!.public_key, 'base64url');
    const key = await crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']);
    expect(await crypto.subtle.verify({ name: 'Ed25519' }, key, Buffer.from(signature!, 'base64url'), Buffer.from(`tq2.${kid}.${payload}`))).toBe(true);
    // The same ticket always has the same secret (the PDF, the e-mail, a second download).
    const [doc] = await ticketsOfOrder(t.ctx.db, order.id);
    expect(await qrSecretOf(t.ctx, doc!)).toBe(tickets[0]!.secret);
  });

  it('a format-1 ticket keeps its plain code in the QR', async () => {
    const { order } = await sellTickets(t, { sessionId });
    await t.ctx.db.execute(sql`UPDATE tickets SET secret_format = 1 WHERE order_id = ${order.id}`);
    const [doc] = await ticketsOfOrder(t.ctx.db, order.id);
    expect(await qrSecretOf(t.ctx, doc!)).toBe(doc!.code);
  });
});

describe('reissue', () => {
  it('bumps the version: the old QR is invalid at once, the new one scans, the list download says v2', async () => {
    const { tickets, order } = await sellTickets(t, { sessionId });
    const first = await gate.tickets(listId);
    const cursor = first.json().next_cursor as string;
    const reissued = await reissueTicketAs(t.ctx, CLI_ACTOR, tickets[0]!.id);
    expect(reissued).toEqual({ ticket_id: tickets[0]!.id, v: 2 });
    expect((await gate.scan(listId, { secret: tickets[0]!.secret })).json().result).toBe('invalid');
    const [doc] = await ticketsOfOrder(t.ctx.db, order.id);
    const fresh = await qrSecretOf(t.ctx, doc!);
    expect(parseSecret(fresh)!.issueVersion).toBe(2);
    expect((await gate.scan(listId, { secret: fresh })).json().result).toBe('valid');
    const changes = (await gate.tickets(listId, `?cursor=${cursor}`)).json();
    expect(changes.tickets.find((x: { id: number }) => x.id === tickets[0]!.id)).toMatchObject({ v: 2 });
  });

  it("is 404 for a void ticket or another organiser's", async () => {
    const { tickets, order } = await sellTickets(t, { sessionId });
    await expect(reissueTicketAs(t.ctx, { ...CLI_ACTOR, role: 'promoter', organiserId: 999_999 }, tickets[0]!.id)).rejects.toMatchObject({ code: 'not_found' });
    await refundOrderAs(t.ctx, CLI_ACTOR, order.reference, 'refund');
    await expect(reissueTicketAs(t.ctx, CLI_ACTOR, tickets[0]!.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('rotation', () => {
  it('new tickets are signed by the new key, old ones keep scanning, devices get both keys until the old tickets are gone', async () => {
    const old = await sellTickets(t, { sessionId });
    const oldKid = parseSecret(old.tickets[0]!.secret)!.kid;
    const { kid, retired } = await rotateSigningKey(t.ctx);
    expect(retired).toBe(oldKid);
    const fresh = await sellTickets(t, { sessionId });
    expect(parseSecret(fresh.tickets[0]!.secret)!.kid).toBe(kid);
    // The old ticket's secret does not change when its PDF is made again.
    const [doc] = await ticketsOfOrder(t.ctx.db, old.order.id);
    expect(await qrSecretOf(t.ctx, doc!)).toBe(old.tickets[0]!.secret);
    const published = (await gate.info()).json().public_keys.map((k: { kid: string }) => k.kid);
    expect(published).toEqual(expect.arrayContaining([oldKid, kid]));
    expect((await gate.scan(listId, { secret: old.tickets[0]!.secret })).json().result).toBe('valid');
    expect((await gate.scan(listId, { secret: fresh.tickets[0]!.secret })).json().result).toBe('valid');

    // Once the old key's tickets are over (their session ended), it is no longer published.
    await t.ctx.db.execute(sql`UPDATE sessions SET end_datetime = start_datetime + interval '1 hour'`);
    t.clock.advance(3 * 3_600_000);
    const later = (await gate.info()).json().public_keys.map((k: { kid: string }) => k.kid);
    expect(later).toEqual([kid]);
    await t.ctx.db.execute(sql`UPDATE sessions SET end_datetime = NULL`);
  });

  it('a withdrawn key stops its tickets at once and is not published', async () => {
    const old = await sellTickets(t, { sessionId });
    const oldKid = parseSecret(old.tickets[0]!.secret)!.kid;
    await rotateSigningKey(t.ctx);
    await expect(withdrawSigningKey(t.ctx, 'ffffffff')).rejects.toMatchObject({ code: 'not_found' });
    await withdrawSigningKey(t.ctx, oldKid);
    expect((await gate.scan(listId, { secret: old.tickets[0]!.secret })).json().result).toBe('invalid');
    expect((await gate.info()).json().public_keys.map((k: { kid: string }) => k.kid)).not.toContain(oldKid);
  });
});

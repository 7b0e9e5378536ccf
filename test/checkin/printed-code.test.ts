import { beforeAll, describe, expect } from 'vitest';
import { decideOffline } from '../../checkin/src/decide.js';
import { legacyCodeHash, parseSecret } from '../../checkin/src/secret.js';
import type { CheckinList, ListTicket } from '../../checkin/src/types.js';
import { refundOrderAs } from '../../src/modules/checkout/order-actions.service.js';
import { reissueTicketAs } from '../../src/modules/checkin/checkin-admin.service.js';
import { ticketsOfOrder } from '../../src/modules/tickets/tickets.repo.js';
import { CLI_ACTOR } from '../../src/platform/actor.js';
import { appTest } from '../helpers.js';
import { device, makeGate, openDoor, sellTickets } from './checkin-helpers.js';

// The 24-character code printed under a ticket's QR (issue 31 item 5): a gate may type it in; the
// scan API and the scanner's offline verification accept it under the signed secret's rules.

const { it, app } = appTest();
let listId: number;
let gate: ReturnType<typeof device>;
let gate2: ReturnType<typeof device>;

beforeAll(async () => {
  const t = app();
  ({ listId } = await openDoor(t, 'Door'));
  gate = await makeGate(t, 'Gate', [listId]);
  gate2 = await makeGate(t, 'Gate 2', [listId]);
}, 120_000);

async function download(): Promise<ListTicket[]> {
  const all: ListTicket[] = [];
  let cursor = '';
  for (;;) {
    const page = (await gate.tickets(listId, cursor ? `?cursor=${cursor}` : '')).json();
    all.push(...page.tickets);
    if (!page.has_more) return all;
    cursor = page.next_cursor;
  }
}

/** What the scanner decides offline for a typed code, from the real list download. */
async function offline(code: string, tickets: ListTicket[], list: CheckinList) {
  const secret = parseSecret(code);
  const hash = secret?.format === 1 ? await legacyCodeHash(secret.code) : null;
  const ticket = tickets.find((x) => x.legacy_code_sha256 === hash);
  return decideOffline({ secret, signatureOk: false, keyKnown: false, list, ticket, local: undefined, direction: 'entry', now: app().clock.now() });
}

describe('online', () => {
  it('12 of 12 printed codes scan valid, then already_used at another gate', async ({ t }) => {
    const { tickets } = await sellTickets(t, { seats: 12 });
    for (const ticket of tickets) {
      expect(ticket.code).toMatch(/^[A-Za-z0-9]{24}$/);
      expect((await gate.scan(listId, { secret: ticket.code })).json()).toMatchObject({ result: 'valid', ticket: { id: ticket.id } });
    }
    for (const ticket of tickets.slice(0, 3)) expect((await gate2.scan(listId, { secret: ticket.code })).json().result).toBe('already_used');
    // The signed secret of a ticket admitted by its code is spent too.
    expect((await gate2.scan(listId, { secret: tickets[0]!.secret })).json().result).toBe('already_used');
  });

  it('a refunded ticket: refunded by its code as by its secret', async ({ t }) => {
    const { tickets, order } = await sellTickets(t);
    await refundOrderAs(t.ctx, CLI_ACTOR, order.reference, 'refund');
    expect((await gate.scan(listId, { secret: tickets[0]!.code })).json().result).toBe('refunded');
    expect((await gate.scan(listId, { secret: tickets[0]!.secret })).json().result).toBe('refunded');
  });

  it('a reissue replaces the printed code: the old one is invalid, the new one valid', async ({ t }) => {
    const { tickets, order } = await sellTickets(t);
    await reissueTicketAs(t.ctx, CLI_ACTOR, tickets[0]!.id);
    const [doc] = await ticketsOfOrder(t.ctx.db, order.id);
    expect(doc!.code).not.toBe(tickets[0]!.code);
    expect((await gate.scan(listId, { secret: tickets[0]!.code })).json().result).toBe('invalid');
    expect((await gate.scan(listId, { secret: doc!.code })).json().result).toBe('valid');
  });

  it('a made-up or altered code is invalid', async ({ t }) => {
    const { tickets } = await sellTickets(t);
    const code = tickets[0]!.code;
    const altered = code.slice(0, -1) + (code.endsWith('a') ? 'b' : 'a');
    expect((await gate.scan(listId, { secret: altered })).json().result).toBe('invalid');
    expect((await gate.scan(listId, { secret: 'A'.repeat(24) })).json().result).toBe('invalid');
  });
});

describe("the scanner's offline verification", () => {
  it('finds a format-2 ticket by its printed code in the list download and admits it; refunded and reissued codes are refused', async ({ t }) => {
    const { tickets } = await sellTickets(t, { seats: 2 });
    const refunded = await sellTickets(t);
    await refundOrderAs(t.ctx, CLI_ACTOR, refunded.order.reference, 'refund');
    const reissued = await sellTickets(t);
    await reissueTicketAs(t.ctx, CLI_ACTOR, reissued.tickets[0]!.id);

    const list = (await gate.info()).json().lists.find((l: CheckinList) => l.id === listId) as CheckinList;
    const all = await download();
    // The download never carries a code itself, only its hash.
    expect(JSON.stringify(all)).not.toContain(tickets[0]!.code);
    for (const ticket of tickets) {
      expect(await offline(ticket.code, all, list)).toMatchObject({ result: 'valid', ticketId: String(ticket.id) });
    }
    expect((await offline(refunded.tickets[0]!.code, all, list)).result).toBe('refunded');
    expect((await offline(reissued.tickets[0]!.code, all, list)).result).toBe('invalid');
    const [fresh] = await ticketsOfOrder(t.ctx.db, reissued.order.id);
    expect((await offline(fresh!.code, all, list)).result).toBe('valid');
    expect((await offline('B'.repeat(24), all, list)).result).toBe('invalid');
  });
});

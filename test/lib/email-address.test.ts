import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, vi } from 'vitest';
import { runCli } from '../../src/cli/index.js';
import { queryRows } from '../../src/db/client.js';
import { EMAIL_MAX_LENGTH, emailProblem } from '../../src/lib/email-address.js';
import { adminApiForFile } from '../admin/admin-helpers.js';
import { buyer, confirmUrl, createPendingOrder } from '../checkout/fixtures.js';
import { appTest, bearer, DEMO, serverTokenFor } from '../helpers.js';
import { createHeldOrder } from '../portal/fixtures.js';

// One e-mail rule (src/lib/email-address.ts) at every place that takes an address: the same
// boundaries give the same answer whether the route schema or the service applies the rule.

const { it, app } = appTest();
const admin = adminApiForFile(app, 'root@taquilla.test');
let serverToken: string;

beforeAll(async () => {
  const t = app();
  serverToken = await serverTokenFor(t.app, DEMO.d.slug, DEMO.d.serverKey);
}, 180_000);

let serial = 0;
/** A well-shaped address of exactly `length` characters, unique per call (accounts must differ). */
function address(length: number): string {
  const domain = '@example.com';
  const tag = `u${++serial}x`;
  return tag + 'a'.repeat(length - domain.length - tag.length) + domain;
}

/** A free numbered seat of the demo catalogue and a rate of its session. */
async function freeSeat() {
  const [seat] = await queryRows<{ id: number; rate_id: number }>(
    app().ctx.db,
    sql`SELECT ss.id, (SELECT id FROM rates WHERE session_id = ss.session_id ORDER BY sort_order LIMIT 1) AS rate_id
        FROM session_seats ss WHERE status = 'available' AND seat_id IS NOT NULL ORDER BY id DESC LIMIT 1`,
  );
  return seat!;
}

type Outcome = { accepted: true } | { accepted: false; emailErrors: string[] };

const fromResponse = (status: number, ok: number, body: { errors?: Record<string, string[]> }, field = 'email'): Outcome =>
  status === ok ? { accepted: true } : (expect(status).toBe(422), { accepted: false, emailErrors: body.errors?.[field] ?? [] });

/** Every place that takes an e-mail address, as a function of the address. */
const PLACES: [string, (email: string) => Promise<Outcome>][] = [
  [
    'channel checkout: confirm (model D, route schema)',
    async (email) => {
      const o = await createPendingOrder(app().ctx, { channel: DEMO.d.slug });
      const payload = { ...buyer, email, amount: o.total / 100, transaction_id: 'tx', payment_method: 'card' };
      const res = await app().app.inject({ method: 'POST', url: confirmUrl(DEMO.d.slug, o.token), headers: bearer(serverToken), payload });
      return fromResponse(res.statusCode, 200, res.json());
    },
  ],
  [
    'portal checkout (model A, service)',
    async (email) => {
      const order = await createHeldOrder(app(), DEMO.a.slug);
      const payload = { order_token: order.token, name: 'Ana', surname: 'García', email };
      const res = await app().app.inject({ method: 'POST', url: `/api/portal/${DEMO.a.slug}/es/checkout`, payload });
      return fromResponse(res.statusCode, 200, res.json());
    },
  ],
  [
    'admin API: a new account (route schema and service)',
    async (email) => {
      const res = await admin.post('/users', { email, password: 'a long enough password', role: 'admin' });
      return fromResponse(res.status, 201, res.body);
    },
  ],
  [
    'admin API: a reservation (route schema and service)',
    async (email) => {
      const [channel] = await queryRows<{ id: number }>(app().ctx.db, sql`SELECT id FROM sales_channels WHERE slug = ${DEMO.b.slug}`);
      const seat = await freeSeat();
      const res = await admin.post(`/channels/${channel!.id}/reservations`, {
        items: [{ session_seat_id: seat.id, rate_id: seat.rate_id }],
        buyer: { name: 'Op', surname: 'Erator', email },
      });
      return fromResponse(res.status, 201, res.body, 'buyer.email');
    },
  ],
  ...(['admin:create', 'orders:reserve'] as const).map((name): [string, (email: string) => Promise<Outcome>] => [
    `CLI ${name} (service)`,
    async (email) => {
      const seat = await freeSeat();
      const argv =
        name === 'admin:create'
          ? [name, `--email=${email}`, '--password=a long enough password']
          : [name, `--channel=${DEMO.b.slug}`, `--items=${seat.id}:${seat.rate_id}`, '--name=Op', '--surname=Erator', `--email=${email}`];
      const err: string[] = [];
      vi.spyOn(console, 'log').mockImplementation(() => {});
      vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
      try {
        const code = await runCli(argv, async () => ({ ctx: app().ctx, appliedNow: [], close: async () => {} }));
        if (code === 0) return { accepted: true };
        expect(code).toBe(1);
        const line = err.find((l) => l.trim().startsWith('email:'));
        return { accepted: false, emailErrors: line ? [line.trim().slice('email: '.length)] : [] };
      } finally {
        vi.restoreAllMocks();
      }
    },
  ]),
];

describe('the e-mail rule', () => {
  it('as a function: at most 254 characters, something@something.something, no spaces', () => {
    expect(EMAIL_MAX_LENGTH).toBe(254);
    expect(emailProblem(address(254))).toBeNull();
    expect(emailProblem(address(255))).toBe('must have at most 254 characters');
    for (const bad of ['ana@example', 'ana.example.com', 'ana @example.com', '@example.com', 'ana@', '']) {
      expect(emailProblem(bad)).toBe('must be an e-mail address');
    }
  });

  describe.each(PLACES)('%s', (_place, submit) => {
    it(`accepts an address of exactly ${EMAIL_MAX_LENGTH} characters`, async () => {
      expect(await submit(address(EMAIL_MAX_LENGTH))).toEqual({ accepted: true });
    });

    it(`refuses ${EMAIL_MAX_LENGTH + 1} characters, naming the e-mail field`, async () => {
      const outcome = await submit(address(EMAIL_MAX_LENGTH + 1));
      expect(outcome.accepted).toBe(false);
      expect((outcome as { emailErrors: string[] }).emailErrors.join()).toMatch(/254/);
    });

    it.each(['ana@example', 'ana example@example.com', 'ana.example.com'])('refuses %j, naming the e-mail field', async (bad) => {
      const outcome = await submit(bad);
      expect(outcome.accepted).toBe(false);
      expect((outcome as { emailErrors: string[] }).emailErrors.length).toBeGreaterThan(0);
    });
  });
});

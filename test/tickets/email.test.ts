import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { freePort, SmtpPeer } from './smtp-peer.js';
import { bearer, buildTestApp, DEMO, isPostgres, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { buyer, confirmUrl, count, createPendingOrder } from '../checkout/fixtures.js';
import { queryRows } from '../../src/db/client.js';
import { processEmailQueue, retryDelayMs } from '../../src/modules/tickets/email-queue.service.js';

let t: TestApp;
let peer: SmtpPeer;
const tokens: Record<string, string> = {};
beforeAll(async () => {
  peer = new SmtpPeer(await freePort());
  t = await buildTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${peer.port}`, MAIL_FROM: 'Taquilla <tickets@taquilla.test>' } });
  tokens.b = await tokenFor(t.app, DEMO.b.slug, DEMO.b.key);
  tokens.d = await serverTokenFor(t.app, DEMO.d.slug, DEMO.d.serverKey); // model D confirms with the server key (D40)
}, 120_000); // building the app with the demo catalogue is slow on a busy machine
afterAll(async () => {
  await peer.stop();
  await t.close();
});

async function confirmed(channel: 'b' | 'd', seats = 1, email = buyer.email) {
  const o = await createPendingOrder(t.ctx, { channel: DEMO[channel].slug, seats });
  const res = await t.app.inject({
    method: 'POST',
    url: confirmUrl(DEMO[channel].slug, o.token),
    headers: bearer(tokens[channel]!),
    payload: { ...buyer, email, amount: o.total / 100 },
  });
  expect(res.statusCode).toBe(200);
  return { ...o, codes: (res.json().data.ticket_pdf_urls as string[]).map((u) => new URL(u).pathname.match(/([A-Za-z0-9]+)\.pdf$/)![1]!) };
}

const outbox = (orderId: number) =>
  queryRows<{ status: string; attempts: number; next_attempt_at: Date; last_error: string | null; lease_until: Date | null }>(
    t.ctx.db,
    sql`SELECT status, attempts, next_attempt_at, last_error, lease_until FROM email_outbox WHERE order_id = ${orderId}`,
  );

describe('ticket e-mail over SMTP', () => {
  it('delivers the tickets to the buyer once, with one PDF per ticket', async () => {
    await peer.start();
    try {
      const o = await confirmed('b', 2, 'buyer-one@example.com');
      const first = await processEmailQueue(t.ctx);
      expect(first).toMatchObject({ sent: 1, retrying: 0 });
      const mails = peer.received.filter((m) => m.to.includes('buyer-one@example.com'));
      expect(mails).toHaveLength(1);
      const raw = mails[0]!.raw;
      expect(mails[0]!.from).toBe('tickets@taquilla.test');
      expect(raw).toMatch(/Subject: =\?UTF-8\?|Subject: Tus entradas/);
      expect(raw.match(/Content-Type: application\/pdf/g)).toHaveLength(2);
      for (const code of o.codes) expect(raw).toContain(`ticket-${code}.pdf`);
      expect(raw).toContain(o.reference);
      const [row] = await outbox(o.id);
      expect(row).toMatchObject({ status: 'sent', attempts: 1, last_error: null });
      // nothing left: a second pass sends nothing
      expect((await processEmailQueue(t.ctx)).claimed).toBe(0);
      expect(peer.received.filter((m) => m.to.includes('buyer-one@example.com'))).toHaveLength(1);
    } finally {
      await peer.stop();
    }
  });

  it('model D: no e-mail at all (D24)', async () => {
    const o = await confirmed('d', 1, 'buyer-d@example.com');
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM email_outbox WHERE order_id = ${o.id}`)).toBe(0);
    await peer.start();
    try {
      await processEmailQueue(t.ctx);
      expect(peer.received.filter((m) => m.to.includes('buyer-d@example.com'))).toHaveLength(0);
    } finally {
      await peer.stop();
    }
  });

  it('peer down: stays queued with backoff; peer up: delivered exactly once', async () => {
    const o = await confirmed('b', 1, 'buyer-down@example.com');
    const down = await processEmailQueue(t.ctx);
    expect(down).toMatchObject({ sent: 0, retrying: 1 });
    let [row] = await outbox(o.id);
    expect(row).toMatchObject({ status: 'queued', attempts: 1, lease_until: null });
    expect(row!.last_error).toBeTruthy();
    expect(new Date(row!.next_attempt_at).getTime()).toBe(t.clock.now().getTime() + retryDelayMs(1));

    // still down at the next try: the delay doubles
    t.clock.advance(retryDelayMs(1));
    expect((await processEmailQueue(t.ctx)).retrying).toBe(1);
    [row] = await outbox(o.id);
    expect(row!.attempts).toBe(2);
    expect(new Date(row!.next_attempt_at).getTime()).toBe(t.clock.now().getTime() + retryDelayMs(2));

    await peer.start();
    try {
      // not due yet: nothing is sent before the backoff elapses
      expect((await processEmailQueue(t.ctx)).claimed).toBe(0);
      t.clock.advance(retryDelayMs(2));
      expect(await processEmailQueue(t.ctx)).toMatchObject({ sent: 1 });
      expect(await processEmailQueue(t.ctx)).toMatchObject({ claimed: 0 });
      expect(peer.received.filter((m) => m.to.includes('buyer-down@example.com'))).toHaveLength(1);
      [row] = await outbox(o.id);
      expect(row).toMatchObject({ status: 'sent', attempts: 3 });
    } finally {
      await peer.stop();
    }
  });

  it('a claimed row is not sent by anyone else while its lease holds', async () => {
    const o = await confirmed('b', 1, 'buyer-lease@example.com');
    // Worker 1 claims the row and dies before sending (its sender never answers).
    let sending!: () => void;
    const worker1Sending = new Promise<void>((resolve) => (sending = resolve));
    const hangs = () => {
      sending();
      return new Promise<never>(() => {});
    };
    const stuck = processEmailQueue(t.ctx, { owner: 'worker-1', sender: { describe: 'hangs', send: hangs } });
    // Worker 1 calls its sender only after its claim has committed: from here on the lease holds.
    await worker1Sending;
    const [claimed] = await outbox(o.id);
    expect(claimed).toMatchObject({ status: 'queued', attempts: 1 });
    expect(new Date(claimed!.lease_until!).getTime()).toBeGreaterThan(t.clock.now().getTime());
    await peer.start();
    try {
      expect((await processEmailQueue(t.ctx, { owner: 'worker-2' })).claimed).toBe(0);
      t.clock.advance(5 * 60_000);
      // lease over: worker 2 takes it over and delivers once
      expect(await processEmailQueue(t.ctx, { owner: 'worker-2' })).toMatchObject({ sent: 1 });
      expect(peer.received.filter((m) => m.to.includes('buyer-lease@example.com'))).toHaveLength(1);
      const [row] = await outbox(o.id);
      expect(row!.status).toBe('sent');
    } finally {
      await peer.stop();
    }
    void stuck;
  });

  it.runIf(isPostgres)('several workers side by side send each e-mail once (PostgreSQL)', async () => {
    const orders = [];
    for (let i = 0; i < 12; i++) orders.push(await confirmed('b', 1, `buyer-par-${i}@example.com`));
    await peer.start();
    try {
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => processEmailQueue(t.ctx, { owner: `w${i}`, limit: 3 })));
      expect(results.reduce((s, r) => s + r.sent, 0)).toBe(12);
      for (let i = 0; i < 12; i++) {
        expect(peer.received.filter((m) => m.to.includes(`buyer-par-${i}@example.com`))).toHaveLength(1);
      }
    } finally {
      await peer.stop();
    }
  });
});

describe('ticket e-mail without SMTP (development)', () => {
  it('writes an .eml file to DATA_DIR/outbox', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-outbox-'));
    const dev = await buildTestApp({ env: { DATA_DIR: dir } });
    try {
      const token = await tokenFor(dev.app, DEMO.b.slug, DEMO.b.key);
      const o = await createPendingOrder(dev.ctx, { channel: 'demo-b' });
      const res = await dev.app.inject({ method: 'POST', url: confirmUrl('demo-b', o.token), headers: bearer(token), payload: { ...buyer, amount: o.total / 100 } });
      expect(res.statusCode).toBe(200);
      expect(await processEmailQueue(dev.ctx)).toMatchObject({ sent: 1 });
      const files = fs.readdirSync(path.join(dir, 'outbox'));
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/\.eml$/);
      const eml = fs.readFileSync(path.join(dir, 'outbox', files[0]!), 'utf8');
      expect(eml).toContain('To: ana@example.com');
      expect(eml).toContain('application/pdf');
    } finally {
      await dev.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000); // builds a second app with the demo catalogue
});

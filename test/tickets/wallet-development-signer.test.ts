import { sql } from 'drizzle-orm';
import forge from 'node-forge';
import { describe, expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase, queryRows, type Database } from '../../src/db/client.js';
import { orderTicketLinks } from '../../src/modules/tickets/tickets.service.js';
import { appleSigner, googleSigner } from '../../src/modules/tickets/wallet.service.js';
import { appTest, buildTestApp, createTestDatabase, isPostgres, type TestApp } from '../helpers.js';
import { paidByCard, unzip } from './wallet-fixtures.js';

// The development wallet signers (D70, docs/wallet.md "The development signer"): made at the first
// start outside production, kept in the database (sealed), reused by later starts and by every
// instance on the same database; never made in production.

const { it, app } = appTest({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '1000' } });

interface SignerRow {
  provider: string;
  certificate: string | null;
  private_key_sealed: string;
}
const signerRows = (db: Database['db']) => queryRows<SignerRow>(db, sql`SELECT provider, certificate, private_key_sealed FROM wallet_development_signers ORDER BY provider`);

const local = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** The signer certificate inside a .pkpass's PKCS#7 signature, as PEM. */
async function passSignerCertificate(app: TestApp['app'], url: string): Promise<string> {
  const res = await app.inject({ url: local(url) });
  expect(res.statusCode).toBe(200);
  const signature = unzip(res.rawPayload).get('signature')!;
  const p7 = forge.pkcs7.messageFromAsn1(forge.asn1.fromDer(forge.util.createBuffer(signature.toString('binary')))) as forge.pkcs7.PkcsSignedData;
  const signer = p7.certificates.find((c) => c.subject.getField('CN')?.value === 'Taquilla development pass signer');
  expect(signer).toBeDefined();
  return forge.pki.certificateToPem(signer!);
}

describe('development signer kept across starts', () => {
  it('the first start stores one sealed signer per provider; a second start on the same database signs passes with the same certificate', async ({ t }) => {
    const rows = await signerRows(t.ctx.db);
    expect(rows.map((r) => r.provider)).toEqual(['apple', 'google']);
    const apple = rows[0]!;
    expect(apple.certificate).toContain('-----BEGIN CERTIFICATE-----');
    expect(rows[1]!.certificate).toBeNull();
    // the private keys are sealed under SIGNING_SECRET, not stored as PEM
    for (const r of rows) {
      expect(r.private_key_sealed).toMatch(/^v1\./);
      expect(r.private_key_sealed).not.toContain('PRIVATE KEY');
    }

    const o = await paidByCard(t, 1);
    const [links] = await orderTicketLinks(t.ctx, o.id);
    const first = await passSignerCertificate(t.app, links!.appleWalletUrl!);
    expect(first.replace(/\r/g, '')).toBe(apple.certificate!.replace(/\r/g, ''));
    const firstGoogle = (await googleSigner(t.ctx))!.privateKey;

    // a second start: another app (a restart, or another instance) on the same database
    const secondDatabase = isPostgres ? await openDatabase({ url: t.db.url!, poolSize: 3 }) : t.db.database;
    const second = await buildApp({ config: t.config, database: secondDatabase, clock: t.clock, logger: false });
    try {
      await second.ready();
      expect(await passSignerCertificate(second, links!.appleWalletUrl!)).toBe(first);
      expect((await googleSigner(second.ctx))!.privateKey).toBe(firstGoogle);
      expect((await appleSigner(second.ctx))!.cert).toBe((await appleSigner(t.ctx))!.cert);
      expect(await signerRows(t.ctx.db)).toEqual(rows);
    } finally {
      await second.close();
      if (isPostgres) await secondDatabase.close();
    }
  });

  it.runIf(isPostgres)('several instances starting at once on an empty PostgreSQL database end with one signer per provider', async () => {
    const db = await createTestDatabase();
    const extra: Database[] = [];
    const apps: Awaited<ReturnType<typeof buildApp>>[] = [];
    try {
      expect(await signerRows(db.database.db)).toEqual([]);
      for (let i = 0; i < 4; i++) {
        const database = i === 0 ? db.database : await openDatabase({ url: db.url!, poolSize: 3 });
        if (i > 0) extra.push(database);
        apps.push(await buildApp({ config: app().config, database, clock: app().clock, logger: false }));
      }
      await Promise.all(apps.map((a) => a.ready()));
      const rows = await signerRows(db.database.db);
      expect(rows.map((r) => r.provider)).toEqual(['apple', 'google']);
      const certs = await Promise.all(apps.map(async (a) => (await appleSigner(a.ctx))!.cert));
      expect(new Set(certs).size).toBe(1);
      expect(certs[0]).toBe(rows[0]!.certificate);
      const keys = await Promise.all(apps.map(async (a) => (await googleSigner(a.ctx))!.privateKey));
      expect(new Set(keys).size).toBe(1);
    } finally {
      for (const a of apps) await a.close();
      for (const d of extra) await d.close();
      await db.drop();
    }
  }, 60_000);

  it('production makes no development signer', async () => {
    const PRODUCTION = { APP_ENV: 'production', SIGNING_SECRET: 's'.repeat(32), STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x', PUBLIC_BASE_URL: 'http://taquilla.test' };
    const prod = await buildTestApp({ env: PRODUCTION, demo: false });
    try {
      expect(await signerRows(prod.ctx.db)).toEqual([]);
      expect(await appleSigner(prod.ctx)).toBeNull();
      expect(await googleSigner(prod.ctx)).toBeNull();
    } finally {
      await prod.close();
    }
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openCliContext } from '../../src/cli/context.js';
import { loadConfig } from '../../src/config.js';
import { queryRows } from '../../src/db/client.js';
import { followPublicAddress } from '../../src/demo/demo-data.js';
import { recordPublicBaseUrl } from '../../src/platform/deployment.repo.js';
import { buildTestApp } from '../helpers.js';
import { runTsx } from '../process.js';

// Issue 16 part 7: links follow the configured public address (PUBLIC_BASE_URL, PORT).

const checkoutOfDemoB = async (db: Parameters<typeof queryRows>[0]) =>
  (await queryRows<{ url: string }>(db, sql`SELECT checkout_url AS url FROM sales_channels WHERE slug = 'demo-b'`))[0]!.url;

describe('demo data', () => {
  it("demo-b's checkout address is at the PORT of the deployment, and moves when PORT changes", async () => {
    const config = loadConfig({ APP_ENV: 'test', PORT: '4567' });
    expect(config.publicBaseUrl).toBe('http://localhost:4567');
    const t = await buildTestApp({ env: { PUBLIC_BASE_URL: '', PORT: '4567' } });
    try {
      expect(await checkoutOfDemoB(t.ctx.db)).toBe('http://localhost:4567/widget/examples/model-b/checkout');
      // The next start is on another port: the demo's address follows, an operator's own does not.
      const moved = { ...t.ctx, config: loadConfig({ APP_ENV: 'test', PORT: '8080' }) };
      await followPublicAddress(moved);
      expect(await checkoutOfDemoB(t.ctx.db)).toBe('http://localhost:8080/widget/examples/model-b/checkout');
      await t.ctx.db.execute(sql`UPDATE sales_channels SET checkout_url = 'https://shop.example/checkout' WHERE slug = 'demo-b'`);
      await followPublicAddress(t.ctx);
      expect(await checkoutOfDemoB(t.ctx.db)).toBe('https://shop.example/checkout');
    } finally {
      await t.close();
    }
  }, 300_000);
});

describe('the command line', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-address-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('prints ticket links at the address the service last started with, from a shell without PORT', async () => {
    const load = await runTsx('src/cli/index.ts', ['demo:load'], { DATA_DIR: dataDir, PORT: '4567' });
    expect(load.code).toBe(0);
    // What src/server.ts does when it starts with PORT=4567.
    const cli = await openCliContext({ DATA_DIR: dataDir, PORT: '4567', APP_ENV: 'development' });
    await recordPublicBaseUrl(cli.ctx.db, cli.ctx.config.publicBaseUrl, new Date());
    const [seat] = await queryRows<{ id: number; rate_id: number }>(
      cli.ctx.db,
      sql`SELECT ss.id::int AS id, (SELECT r.id FROM rates r WHERE r.session_id = ss.session_id ORDER BY r.id LIMIT 1)::int AS rate_id
            FROM session_seats ss WHERE ss.status = 'available' AND ss.seat_id IS NOT NULL ORDER BY ss.id LIMIT 1`,
    );
    await cli.close();

    const reserve = await runTsx(
      'src/cli/index.ts',
      ['orders:reserve', '--channel', 'demo-a', '--items', `${seat!.id}:${seat!.rate_id}`, '--name', 'Ana', '--surname', 'García', '--email', 'ana@example.com'],
      { DATA_DIR: dataDir },
    );
    expect(reserve.code).toBe(0);
    const urls = JSON.parse(reserve.stdout).ticket_pdf_urls as string[];
    expect(urls.length).toBe(1);
    expect(urls[0]!.startsWith('http://localhost:4567/api/tickets/')).toBe(true);

    // An explicit address in the command's own environment wins.
    const own = await openCliContext({ DATA_DIR: dataDir, PUBLIC_BASE_URL: 'https://tickets.example' });
    expect(own.ctx.config.publicBaseUrl).toBe('https://tickets.example');
    await own.close();
  }, 300_000);
});

import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { queryRows } from '../../src/db/client.js';
import { followPublicAddress } from '../../src/demo/demo-data.js';
import { buildTestApp } from '../helpers.js';

// Issue 16 part 7: links follow the configured public address (PUBLIC_BASE_URL, PORT). The command
// line's links, on its own embedded database: public-address-cli.test.ts.

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

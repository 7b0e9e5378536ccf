import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openCliContext } from '../../src/cli/context.js';
import { queryRows } from '../../src/db/client.js';
import { recordPublicBaseUrl } from '../../src/platform/deployment.repo.js';
import { runTsx } from '../process.js';

// Issue 16 part 7: the command line's links follow the address the service last started with
// (PUBLIC_BASE_URL, PORT), on the embedded database in DATA_DIR whatever TEST_DB says; the demo
// data's addresses on the database under test: public-address.test.ts.

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

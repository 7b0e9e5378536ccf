import fs from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

// TEST_DB=pglite (default) runs every file on a fresh in-memory PGlite; TEST_DB=postgres on a fresh
// database of the server at TEST_PG_URL, cloned from a migrated template made once per run.
//
// The browser tests (Chromium) check screens: what a page does to the database goes through routes
// whose every rule is tested on both databases by the API tests. Each runs on one database only
// (both with TEST_BROWSER=all or TEST_FILES=all), so that CI's two suites, which run side by side,
// fit its time limit: most on PGlite, and those of BROWSER_TESTS_ON_POSTGRES on PostgreSQL.
const BROWSER_TESTS = [
  ...fs
    .readdirSync('test', { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.browser.test.ts'))
    .map((f) => `test/${f.split(path.sep).join('/')}`),
  'test/widget/browser.test.ts',
  'test/portal/browser.test.ts',
];
// The screens of whole journeys (the box office, the buyer's texts, accessibility over every page):
// they run in the suite on PostgreSQL, which is otherwise the shorter one (on 2026-12-08: PGlite
// 1,107 s, PostgreSQL 837 s; these three files 136 s on PGlite).
const BROWSER_TESTS_ON_POSTGRES = ['test/ux/office.browser.test.ts', 'test/ux/buyer-text.browser.test.ts', 'test/ux/a11y.browser.test.ts'];
// The same rule for the files whose subject does not depend on the kind of database: pure unit
// tests (no database at all), checks of the docs and lints over the source or the served OpenAPI
// document, static serving, packaging, and the programs (the operator command, the data folder's
// lock, `npm start`) on their own embedded database in DATA_DIR, whatever TEST_DB says. Each runs
// once, on PostgreSQL: the suite on PGlite already carries the browser tests, so this evens out the
// two suites' times (CI runs them side by side). TEST_FILES=all runs them on PGlite too. A file
// that exercises SQL, concurrency, outages or notifications on the database under test never
// belongs here: it runs on both.
const DATABASE_NEUTRAL_TESTS = [
  // no database
  'test/admin/password.test.ts',
  'test/catalogue/catalogue-cache.test.ts',
  'test/checkin/scanner-verify.test.ts',
  'test/cli/cli-args.test.ts',
  'test/clients/client-schema.test.ts',
  'test/config/config.test.ts',
  'test/designer/plan.test.ts',
  'test/widget/hit-grid.test.ts',
  'test/http/error-templates.test.ts',
  'test/http/fuzz.test.ts',
  'test/http/log-path.test.ts',
  'test/http/rate-limits.config.test.ts',
  'test/http/strict-bodies.test.ts',
  'test/lib/downloads.test.ts',
  'test/lib/seat-layout.test.ts',
  'test/lib/zoned-time.test.ts',
  'test/lib/secrets.test.ts',
  'test/orders/best-available.property.test.ts',
  'test/orders/pricing.test.ts',
  'test/platform/cache.test.ts',
  'test/platform/i18n.test.ts',
  'test/platform/scheduler.test.ts',
  'test/queue/queue-store.test.ts',
  'test/tickets/ticket-email-html.test.ts',
  'test/tickets/ticket-pdf-scripts.test.ts',
  'test/ui/seat-canvas.test.ts',
  'test/ui/service-clock.test.ts',
  'widget/test/state.test.ts',
  // docs, lints over the source and the OpenAPI document, route declarations, schema compilation
  'test/docs/docs.test.ts',
  'test/http/openapi-lint.test.ts',
  'test/http/input-bounds.test.ts',
  'test/http/route-policy.test.ts',
  'test/http/lazy-compilers.test.ts',
  // headers and static files, the client package, the CLI process on its own embedded database
  'test/http/security-headers.test.ts',
  'test/widget/widget-serving.test.ts',
  'test/checkin/scanner-serving.test.ts',
  'test/clients/client-package.test.ts',
  'test/cli/cli-process.test.ts',
  // processes on their own embedded database in DATA_DIR, whatever TEST_DB says
  'test/db/data-dir-lock.test.ts',
  'test/demo/public-address-cli.test.ts',
  'test/server/npm-start-signals.test.ts',
  // the same, and on PostgreSQL that DATABASE_URL bypasses DATA_DIR (their tests that need the server)
  'test/server/data-dir-owner.test.ts',
  'test/server/server-process.test.ts',
];
const all = process.env.TEST_FILES === 'all';
const onPostgres = process.env.TEST_DB === 'postgres';
const everyBrowserTest = all || process.env.TEST_BROWSER === 'all';
const browserTestsElsewhere = everyBrowserTest ? [] : BROWSER_TESTS.filter((f) => BROWSER_TESTS_ON_POSTGRES.includes(f) !== onPostgres);
const neutralHere = onPostgres || all;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'widget/**/*.test.ts', 'portal/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...browserTestsElsewhere, ...(neutralHere ? [] : DATABASE_NEUTRAL_TESTS)],
    // At the top of every test file: the clocks of test apps go back after each test (test/test-clocks.ts).
    setupFiles: ['test/setup-each-file.ts'],
    globalSetup: ['test/global-setup.ts', 'test/widget/build-widget.global.ts', 'test/checkin/scanner-build.global.ts', 'test/designer/designer-build.global.ts', 'test/portal/portal-build.global.ts', 'test/server/build-server.global.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One worker process runs its files one after the other and keeps the modules they share
    // (the service, fastify, drizzle, PGlite's compiled WebAssembly): a fresh process per file spent
    // several seconds importing them again before each file's first test, most of a small file's
    // time. Every file still builds its own app on its own fresh database (test/helpers.ts), the
    // service keeps per-app state in the app's context (src/app-context.ts), and vitest restores
    // spies after each file.
    isolate: false,
  },
});

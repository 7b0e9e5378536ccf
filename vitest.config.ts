import { defineConfig } from 'vitest/config';

// TEST_DB=pglite (default) runs every file on a fresh in-memory PGlite; TEST_DB=postgres on a fresh
// database of the server at TEST_PG_URL, cloned from a migrated template made once per run.
//
// The browser tests (Chromium) check screens: what a page does to the database goes through routes
// whose every rule is tested on both databases by the API tests. They run on PGlite, and on
// PostgreSQL only with TEST_BROWSER=all, so that the suite on PostgreSQL spends its time on what
// differs there (concurrency, notifications, outages) and CI's two suites fit its time limit.
const BROWSER_TESTS = ['**/*.browser.test.ts', 'test/widget/browser.test.ts', 'test/portal/browser.test.ts'];
const browserHere = process.env.TEST_DB !== 'postgres' || process.env.TEST_BROWSER === 'all';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'widget/**/*.test.ts', 'portal/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...(browserHere ? [] : BROWSER_TESTS)],
    globalSetup: ['test/global-setup.ts', 'test/widget/build-widget.global.ts', 'test/checkin/scanner-build.global.ts', 'test/designer/designer-build.global.ts', 'test/server/build-server.global.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});

import { defineConfig } from 'vitest/config';

// TEST_DB=pglite (default) runs every file on a fresh in-memory PGlite; TEST_DB=postgres on a fresh
// database of the server at TEST_PG_URL, cloned from a migrated template made once per run.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'widget/**/*.test.ts', 'portal/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts', 'test/widget/build-widget.global.ts', 'test/checkin/scanner-build.global.ts', 'test/designer/designer-build.global.ts', 'test/server/build-server.global.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});

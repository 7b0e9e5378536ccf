import { restoreClocksAfterEachTest } from './test-clocks.js';

// Runs at the top of every test file (vitest.config.ts, setupFiles).
restoreClocksAfterEachTest();

import fs from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Writes one line per test file with its whole time, from its worker's start to its end: import
 * (collect), hooks and tests. The JSON reporter's startTime/endTime of a file cover its tests only,
 * not its beforeAll (a database, an app, a browser, a server process) nor its imports. The file is
 * FILE_TIMES_OUT (default test-results/file-times-<TEST_DB>.tsv); .ci/run prints the slowest.
 */
export default class FileTimes implements Reporter {
  private readonly out = process.env.FILE_TIMES_OUT || `test-results/file-times-${process.env.TEST_DB || 'pglite'}.tsv`;
  private readonly queued = new Map<string, number>();

  onInit() {
    fs.mkdirSync(path.dirname(this.out), { recursive: true });
    fs.writeFileSync(this.out, 'seconds\ttests_seconds\tcollect_seconds\tended_at\tstate\tfile\n');
  }

  onTestModuleQueued(m: TestModule) {
    this.queued.set(m.moduleId, Date.now());
  }

  onTestModuleEnd(m: TestModule) {
    const d = m.diagnostic();
    const started = this.queued.get(m.moduleId);
    const wall = started ? (Date.now() - started) / 1000 : (d.prepareDuration + d.setupDuration + d.collectDuration + d.duration) / 1000;
    let tests = 0;
    for (const t of m.children.allTests()) tests += t.diagnostic()?.duration ?? 0;
    const name = m.moduleId.startsWith(process.cwd()) ? m.moduleId.slice(process.cwd().length + 1) : m.moduleId;
    fs.appendFileSync(this.out, `${wall.toFixed(1)}\t${(tests / 1000).toFixed(1)}\t${(d.collectDuration / 1000).toFixed(1)}\t${new Date().toISOString()}\t${m.state()}\t${name}\n`);
  }
}

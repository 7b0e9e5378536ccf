import { afterEach, describe, expect, it } from 'vitest';
import { Scheduler, type Job } from '../../src/platform/scheduler.js';

/** A log that remembers what it was told. */
function memoryLog() {
  const infos: string[] = [];
  const errors: { obj: object; msg: string }[] = [];
  return { infos, errors, info: (msg: string) => void infos.push(msg), error: (obj: object, msg: string) => void errors.push({ obj, msg }) };
}

/** Resolves once `condition` holds; polls every few ms and fails after `limitMs`. */
async function until(condition: () => boolean, limitMs = 5_000): Promise<void> {
  const start = performance.now();
  while (!condition()) {
    if (performance.now() - start > limitMs) throw new Error(`condition not met within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Jobs of the running test that hold their passes open: let go after each test. */
const held: { letGo(): void }[] = [];

/** A job whose passes the test holds open and releases one by one. */
function heldJob(name: string, intervalMs: number) {
  const releases: (() => void)[] = [];
  let holding = true;
  const stats = { started: 0, finished: 0, running: 0, maxRunning: 0 };
  const job: Job = {
    name,
    intervalMs,
    async run() {
      stats.started++;
      stats.running++;
      stats.maxRunning = Math.max(stats.maxRunning, stats.running);
      if (holding) await new Promise<void>((resolve) => releases.push(resolve));
      stats.running--;
      stats.finished++;
    },
  };
  held.push({
    letGo() {
      holding = false;
      releases.splice(0).forEach((release) => release());
    },
  });
  return { job, stats, releaseNext: () => releases.shift()?.() };
}

const schedulers: Scheduler[] = [];
function scheduler(log = memoryLog()) {
  const s = new Scheduler(log);
  schedulers.push(s);
  return s;
}
/** A started scheduler whose one job (every 2 ms) is in its first pass, held open. */
async function startedWithPassHeld() {
  const s = scheduler();
  const slow = heldJob('slow', 2);
  s.add(slow.job);
  s.start();
  await until(() => slow.stats.started === 1);
  return { s, slow };
}
afterEach(async () => {
  for (const job of held.splice(0)) job.letGo();
  await Promise.all(schedulers.splice(0).map((s) => s.stop()));
});

describe('Scheduler', () => {
  it('runs nothing until started, then runs each job at its interval', async () => {
    let passes = 0;
    const s = scheduler();
    s.add({ name: 'count', intervalMs: 5, run: async () => void passes++ });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(passes).toBe(0);
    s.start();
    await until(() => passes >= 3);
  });

  it('never overlaps a job with itself: ticks during a slow pass are skipped', async () => {
    const { slow } = await startedWithPassHeld();
    // Many ticks go by while the first pass is held open.
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(slow.stats.started).toBe(1);
    slow.releaseNext();
    await until(() => slow.stats.started === 2); // the next tick after the pass ends runs again
    expect(slow.stats.maxRunning).toBe(1);
    slow.releaseNext();
    await until(() => slow.stats.finished === 2);
  });

  it('runOnce joins the pass under way instead of starting a second one', async () => {
    const s = scheduler();
    const slow = heldJob('slow', 60_000);
    s.add(slow.job);
    const first = s.runOnce('slow');
    const second = s.runOnce('slow');
    expect(second).toBe(first);
    slow.releaseNext();
    await first;
    expect(slow.stats).toMatchObject({ started: 1, finished: 1, maxRunning: 1 });
  });

  it('a failing pass is logged and the next tick runs the job again', async () => {
    const log = memoryLog();
    const s = scheduler(log);
    let passes = 0;
    s.add({
      name: 'flaky',
      intervalMs: 3,
      async run() {
        passes++;
        if (passes === 1) throw new Error('database away');
      },
    });
    s.start();
    await until(() => passes >= 3);
    expect(log.errors).toHaveLength(1);
    expect(log.errors[0]!.msg).toContain('job flaky failed');
    expect((log.errors[0]!.obj as { err: Error }).err.message).toBe('database away');
  });

  it('stop waits for the pass under way and then runs nothing more', async () => {
    const { s, slow } = await startedWithPassHeld();
    let stopped = false;
    const stopping = s.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false); // still waiting for the held pass
    slow.releaseNext();
    await stopping;
    expect(slow.stats.finished).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(slow.stats.started).toBe(1); // no tick after stop
  });

  it('refuses a second job of the same name and logs each job as it starts', () => {
    const log = memoryLog();
    const s = scheduler(log);
    s.add({ name: 'mail', intervalMs: 5_000, run: async () => {}, describe: () => 'files in /tmp/outbox' });
    expect(() => s.add({ name: 'mail', intervalMs: 1, run: async () => {} })).toThrow('job mail is already scheduled');
    s.start();
    expect(log.infos).toEqual(['job mail every 5000 ms (files in /tmp/outbox)']);
  });
});

/** Background work run every `intervalMs` while the service serves (expiry sweep, e-mail queue, ...). */
export interface Job {
  /** Kebab-case; names the job in logs. */
  name: string;
  intervalMs: number;
  /** One pass. Errors are logged by the scheduler; the next tick runs the job again. */
  run(): Promise<void>;
  /** What the start-up log says about the job (e.g. where e-mail goes). */
  describe?(): string;
}

/** A job whose pass is one call of `pass` (its result is not used). */
export const periodicJob = (name: string, intervalMs: number, pass: () => Promise<unknown>): Job => ({
  name,
  intervalMs,
  async run() {
    await pass();
  },
});

interface SchedulerLog {
  info(msg: string): void;
  error(obj: object, msg: string): void;
}

interface Entry {
  job: Job;
  timer: NodeJS.Timeout | null;
  /** The pass under way, if any: a tick that finds one skips (a job never overlaps itself). */
  running: Promise<void> | null;
}

/**
 * Runs named jobs at intervals. Registering a job does not start it: the process that serves
 * (src/server.ts) calls `start`; tests call `runOnce` or start it themselves. `stop` clears the
 * timers and waits for the passes under way, so that shutdown never closes the database under a job.
 */
export class Scheduler {
  private readonly entries = new Map<string, Entry>();
  private started = false;

  constructor(private readonly log: SchedulerLog) {}

  add(job: Job): void {
    if (this.entries.has(job.name)) throw new Error(`job ${job.name} is already scheduled`);
    if (!(job.intervalMs > 0)) throw new Error(`job ${job.name}: intervalMs must be positive`);
    const entry: Entry = { job, timer: null, running: null };
    this.entries.set(job.name, entry);
    if (this.started) this.arm(entry);
  }

  get jobNames(): string[] {
    return [...this.entries.keys()];
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const entry of this.entries.values()) this.arm(entry);
  }

  /** Runs one pass of a job now, or joins the pass under way; resolves when it has ended. */
  runOnce(name: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`no job named ${name}`);
    return this.tick(entry);
  }

  /** Clears every timer, then waits for the passes under way. */
  async stop(): Promise<void> {
    this.started = false;
    for (const entry of this.entries.values()) {
      if (entry.timer) clearInterval(entry.timer);
      entry.timer = null;
    }
    await Promise.all([...this.entries.values()].map((entry) => entry.running));
  }

  private arm(entry: Entry): void {
    const { job } = entry;
    this.log.info(`job ${job.name} every ${job.intervalMs} ms${job.describe ? ` (${job.describe()})` : ''}`);
    entry.timer = setInterval(() => void this.tick(entry), job.intervalMs);
    // Background work never keeps the process alive by itself; shutdown stops it explicitly.
    entry.timer.unref();
  }

  private tick(entry: Entry): Promise<void> {
    if (!entry.running) {
      entry.running = this.pass(entry.job).finally(() => (entry.running = null));
    }
    return entry.running;
  }

  private async pass(job: Job): Promise<void> {
    try {
      await job.run();
    } catch (err) {
      this.log.error({ err, job: job.name }, `job ${job.name} failed; it runs again at its next tick`);
    }
  }
}

import fs from 'node:fs';

// One owner per embedded database folder (DECISIONS D48). PGlite is a single-process database:
// two processes writing the same folder lose writes without any error. Whoever opens the folder
// first creates `<folder>.lock` exclusively (O_CREAT|O_EXCL) with its pid; anyone else is refused
// while that pid is alive. A lock left by a process that died (kill -9, power cut) is stale and
// taken over. The kernel has no portable advisory lock for Node, hence the pid file.

/** Who holds the folder, as written in the lock file. */
export interface LockHolder {
  pid: number;
  /** `service` or `command line`: what the refusal tells the operator to stop or use instead. */
  owner: string;
  since: string;
}

/** The folder is owned by another live process. */
export class DataDirBusyError extends Error {
  override name = 'DataDirBusyError';
  constructor(
    readonly folder: string,
    readonly holder: LockHolder | null,
  ) {
    const who = holder ? `a running Taquilla ${holder.owner} (pid ${holder.pid}, since ${holder.since})` : 'another process that is starting';
    super(
      `the embedded database ${folder} is in use by ${who}. ` +
        'Only one process may open it at a time: stop the service first (then run this again), ' +
        'or make the change through the running service: the admin API (/api/admin/v1) or the dashboard (/admin).',
    );
  }
}

export interface DataDirLock {
  readonly file: string;
  /** Removes the lock file if it is still ours; safe to call more than once. */
  release(): void;
}

/** Lock files this process holds: its own pid in one of them is not a leftover. */
const heldHere = new Set<string>();

/** How long a lock file without readable content counts as being written rather than abandoned. */
const WRITING_GRACE_MS = 5_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user; it still owns the folder.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): LockHolder | 'missing' | 'unreadable' {
  try {
    const holder = JSON.parse(fs.readFileSync(file, 'utf8')) as LockHolder;
    return Number.isInteger(holder.pid) && holder.pid > 0 ? holder : 'unreadable';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable';
  }
}

function ageMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return Infinity;
  }
}

type LockState = { state: 'missing' } | { state: 'stale' } | { state: 'held'; holder: LockHolder | null };

function inspect(file: string): LockState {
  const holder = readHolder(file);
  if (holder === 'missing') return { state: 'missing' };
  // No readable content yet: another process is between creating the file and writing its pid.
  if (holder === 'unreadable') return ageMs(file) < WRITING_GRACE_MS ? { state: 'held', holder: null } : { state: 'stale' };
  if (holder.pid === process.pid) {
    // Our own pid: held by this very process, or a leftover of an earlier life (a restarted
    // container gives its processes the same pids again).
    return heldHere.has(file) ? { state: 'held', holder } : { state: 'stale' };
  }
  return isAlive(holder.pid) ? { state: 'held', holder } : { state: 'stale' };
}

/** Returns once the lock file is gone (removed if stale); throws DataDirBusyError if it is held. */
function clearIfStale(file: string, folder: string): void {
  const found = inspect(file);
  if (found.state === 'missing') return;
  if (found.state === 'held') throw new DataDirBusyError(folder, found.holder);
  // Two processes finding the same stale lock must not both remove it (the second would remove the
  // first one's fresh lock): the removal runs under a short-lived guard file, after a second look.
  const guard = `${file}.takeover`;
  let guardFd: number;
  try {
    guardFd = fs.openSync(guard, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if (ageMs(guard) < WRITING_GRACE_MS) throw new DataDirBusyError(folder, null);
    // An old guard was left by a process that died mid-takeover; the caller's next attempt goes on.
    fs.rmSync(guard, { force: true });
    return;
  }
  try {
    const again = inspect(file);
    if (again.state === 'held') throw new DataDirBusyError(folder, again.holder);
    if (again.state === 'stale') fs.rmSync(file, { force: true });
  } finally {
    fs.closeSync(guardFd);
    fs.rmSync(guard, { force: true });
  }
}

/**
 * Takes the folder for this process or throws DataDirBusyError at once (no waiting: an operator
 * running a command against a live service must hear so, not hang).
 */
export function lockDataDir(folder: string, owner: string): DataDirLock {
  const file = `${folder}.lock`;
  const content = JSON.stringify({ pid: process.pid, owner, since: new Date().toISOString() } satisfies LockHolder);
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = fs.openSync(file, 'wx', 0o644);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      clearIfStale(file, folder);
      continue;
    }
    try {
      fs.writeSync(fd, content);
    } finally {
      fs.closeSync(fd);
    }
    heldHere.add(file);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      heldHere.delete(file);
      process.off('exit', release);
      const holder = readHolder(file);
      if (typeof holder === 'object' && holder.pid === process.pid) fs.rmSync(file, { force: true });
    };
    // A process that ends without closing the database (process.exit, an uncaught error) still frees it.
    process.on('exit', release);
    return { file, release };
  }
  throw new DataDirBusyError(folder, null);
}

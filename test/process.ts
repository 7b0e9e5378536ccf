import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

export interface Running {
  child: ChildProcess;
  /** Kills the process and its children (tsx runs the script in a child process). */
  killAll(): void;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  exited: Promise<number | string>;
  /** Resolves with the first match of `pattern` in stdout; rejects if the process ends first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

/**
 * Starts `node --import tsx <script> ...args` from the project root (see startNode): the script runs
 * in this one process, as under `npm start`, so a signal reaches it directly. (The `tsx` command
 * runs the script in a child and kills it with SIGKILL when it does not acknowledge a relayed
 * signal within about 60 ms, which a loaded machine can exceed.)
 */
export const startTsx = (script: string, args: string[], env: Record<string, string>) => startNode(['--import', 'tsx', script, ...args], env);

/**
 * Starts the service as `npm start` runs it (node dist/server.mjs, built by the suite's global setup:
 * test/server/build-server.global.ts), without npm in between.
 */
export const startBuiltService = (env: Record<string, string>) => startNode(['dist/server.mjs'], env);

/**
 * Starts `node ...args` from the project root, with `env` added to a clean environment (the test
 * runner's database variables removed so the child uses only what the test gives it).
 */
function startNode(nodeArgs: string[], env: Record<string, string>): Running {
  const base = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'APP_ENV', 'NODE_ENV', 'PORT', 'TEST_DB', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID']) {
    delete base[name];
  }
  const child = spawn(process.execPath, nodeArgs, { cwd: ROOT, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout!.on('data', (chunk) => {
    out += chunk;
    for (const l of listeners) l();
  });
  child.stderr!.on('data', (chunk) => (err += chunk));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    child,
    killAll() {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    },
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 150_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (m) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; stdout: ${out.slice(-2000)} stderr: ${err.slice(-2000)}`));
        }, timeoutMs);
        listeners.add(check);
        void exited.then((code) => {
          if (listeners.delete(check)) {
            clearTimeout(timer);
            reject(new Error(`process exited (${code}) before ${pattern}; stdout: ${out.slice(-2000)} stderr: ${err.slice(-2000)}`));
          }
        });
        check();
      });
    },
  };
}

/** Runs `node ...args` to the end. */
export async function runNode(nodeArgs: string[], env: Record<string, string>) {
  const run = startNode(nodeArgs, env);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** Runs `node --import tsx <script> ...args` to the end. */
export const runTsx = (script: string, args: string[], env: Record<string, string>) => runNode(['--import', 'tsx', script, ...args], env);

/**
 * A maker of fresh folders under the system's temporary one (a process's DATA_DIR), named
 * `prefix`...; all of them are removed once the calling file's tests are done.
 */
export function tempFolders(prefix: string): () => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

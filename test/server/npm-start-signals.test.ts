import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../portal/browser-helpers.js';

// `npm start` under a supervisor (systemd, Docker, a CI job): the supervisor signals the npm
// process only. npm passes SIGTERM and SIGINT to its script's shell; the script `exec`s node so that
// the shell does not die in between and orphan the server (issue 14). `npm start` runs the compiled
// service (dist/server.mjs, the bundle of the tsc output, issue 19), built by the suite's global
// setup (test/server/build-server.global.ts), so this also proves that the bundled service starts
// on a fresh data folder (from the build's PGlite template) and answers.

const ROOT = path.resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

describe('npm start', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('stops the server gracefully when the npm process gets %s', async (signal) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-npm-'));
    dirs.push(dataDir);
    const port = await freePort();
    const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', APP_ENV: 'development', LOG_LEVEL: 'info' };
    for (const name of ['DATABASE_URL', 'NODE_ENV', 'TEST_DB', 'VITEST', 'VITEST_POOL_ID', 'VITEST_WORKER_ID']) delete env[name];
    const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    npm.stdout!.on('data', (chunk) => (out += chunk));
    npm.stderr!.on('data', (chunk) => (out += chunk));
    const npmExited = new Promise<void>((resolve) => npm.on('exit', () => resolve()));
    // 'close' comes once every process holding the output pipes (npm, sh, tsx, the server) is gone
    // and the last of their lines has been read: the server's last line may follow npm's exit.
    const outputClosed = new Promise<void>((resolve) => npm.on('close', () => resolve()));
    let serverPid = 0;
    try {
      const deadline = Date.now() + 180_000;
      while (!/"msg":"Taquilla development on/.test(out)) {
        if (Date.now() > deadline || npm.exitCode !== null) throw new Error(`the service did not start: ${out.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      // The server is the process that logs (pino writes its pid), not npm, sh or tsx.
      serverPid = Number(/"pid":(\d+)/.exec(out)![1]);
      expect(serverPid).not.toBe(npm.pid);

      process.kill(npm.pid!, signal);
      await npmExited;
      for (let i = 0; i < 100 && isRunning(serverPid); i++) await new Promise((r) => setTimeout(r, 100));
      expect(isRunning(serverPid)).toBe(false);
      await Promise.race([outputClosed, new Promise((r) => setTimeout(r, 5_000))]);
      expect(await portIsFree(port)).toBe(true);
      expect(out).toContain(`"signal":"${signal}","msg":"shutting down"`);
      // The embedded database was closed, not abandoned: its lock is gone (D48).
      expect(fs.existsSync(path.join(dataDir, 'pglite.lock'))).toBe(false);
    } finally {
      try {
        process.kill(-npm.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, 240_000);
});

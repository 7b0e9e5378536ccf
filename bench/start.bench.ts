/**
 * `npm run bench:start`: how long `npm start` takes to answer its first token call (issue 19):
 * on a fresh data folder (the embedded database created, migrated and given the demo catalogue) and
 * on a restart of the same folder. Budgets: 5 s and 2 s on the project's 2-core machine.
 * Options: `--runs N` (default 3; the median is printed), `--cwd DIR` (another checkout, e.g. the
 * state before a change, whose own `npm start` is then measured).
 * `npm start` runs the build (`npm run build`, done by `npm install`); the bench says so if it is missing.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { freePort } from './bench-processes.js';
import os from 'node:os';
import path from 'node:path';

const BUDGET_MS = { fresh: 5_000, restart: 2_000 };

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const runs = Number(arg('runs') ?? 3);
const cwd = path.resolve(arg('cwd') ?? path.join(import.meta.dirname, '..'));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * CPU seconds spent so far by the process group `pgid` (npm, its script, the server, and the
 * finished children they waited for, such as a build): on a loaded machine the wall time says
 * more about the neighbours than about the start; the CPU time is what a quiet machine would wait
 * (the start is one thread, bar PGlite's and npm's short side work). Linux only (/proc); NaN elsewhere.
 */
function groupCpuSeconds(pgid: number): number {
  let ticks = 0;
  try {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue;
      }
      // Fields after the command name "(...)": state ppid pgrp ... utime(14) stime(15) cutime(16) cstime(17).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    }
  } catch {
    return NaN;
  }
  return ticks / 100; // USER_HZ
}

/** Starts `npm start` on `dataDir`; resolves with the ms until the first token call answered 200 (and the CPU seconds), and a stop. */
async function startOnce(dataDir: string): Promise<{ ms: number; cpu: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', APP_ENV: 'development', LOG_LEVEL: 'warn' };
  for (const name of ['DATABASE_URL', 'NODE_ENV']) delete env[name];
  const started = performance.now();
  const child = spawn('npm', ['start'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const body = JSON.stringify({ sales_channel_slug: 'demo-a', widget_key: 'wk_demo_a' });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start ended (${child.exitCode}):\n${output.slice(-3000)}`);
    if (performance.now() - started > 180_000) throw new Error(`no answer within 180 s:\n${output.slice(-3000)}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/sales-channel/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  const ms = performance.now() - started;
  const cpu = groupCpuSeconds(child.pid!);
  return {
    ms,
    cpu,
    async stop() {
      // As a supervisor does: SIGTERM to npm only; the server must stop by itself.
      process.kill(child.pid!, 'SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the whole group is gone
      }
    },
  };
}

async function main() {
  if (!fs.existsSync(path.join(cwd, 'package.json'))) throw new Error(`no package.json in ${cwd}`);
  const script = JSON.parse(fs.readFileSync(path.join(cwd, 'package.json'), 'utf8')).scripts.start as string;
  const entry = /node (dist\/\S+\.m?js)/.exec(script)?.[1];
  if (entry && !fs.existsSync(path.join(cwd, entry))) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const fresh: number[] = [];
  const restart: number[] = [];
  const freshCpu: number[] = [];
  const restartCpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-start-'));
    try {
      const first = await startOnce(dataDir);
      await first.stop();
      fresh.push(first.ms);
      freshCpu.push(first.cpu);
      const again = await startOnce(dataDir);
      await again.stop();
      restart.push(again.ms);
      restartCpu.push(again.cpu);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const [l1, l5] = os.loadavg();
  const line = (name: string, xs: number[], cpu: number[], budget: number) =>
    `${name.padEnd(28)} median ${(median(xs) / 1000).toFixed(2)} s  (runs: ${xs.map((x) => (x / 1000).toFixed(2)).join(', ')} s; budget ${budget / 1000} s)` +
    `; CPU ${median(cpu).toFixed(2)} s (runs: ${cpu.map((c) => c.toFixed(2)).join(', ')} s)`;
  console.log(`npm start in ${cwd}: "${script}"`);
  console.log(line('fresh data folder', fresh, freshCpu, BUDGET_MS.fresh));
  console.log(line('restart on the same folder', restart, restartCpu, BUDGET_MS.restart));
  console.log(`machine: ${os.cpus().length} cores, load average ${l1!.toFixed(2)} (1 min) ${l5!.toFixed(2)} (5 min)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

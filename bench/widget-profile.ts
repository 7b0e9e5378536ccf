/**
 * Diagnostic for bench:widget (issue 29): one init -> interactive run of the widget in headless
 * Chromium with a CPU profile and the resource timings, printed as a breakdown (where the time goes).
 * `BENCH_SEATS=20000 tsx bench/widget-profile.ts` (one seat count; BENCH_RUNS profiles, default 3).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { initToMapTimes, startSyntheticService } from './widget-page.js';

const SEATS = Number(process.env.BENCH_SEATS ?? 20000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** BENCH_CPU=0: marks and requests only (the sampling profiler slows the page down). */
const CPU = process.env.BENCH_CPU !== '0';

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[]; positionTicks?: { line: number; ticks: number }[] }

async function main() {
  const outDir = '/tmp/taquilla-widget-profile';
  await build({ configFile: new URL('../widget/vite.config.ts', import.meta.url).pathname, logLevel: 'warn', build: { minify: false, outDir, emptyOutDir: true } });
  const code = readFileSync(`${outDir}/widget.iife.js`, 'utf8');
  const service = await startSyntheticService(code, SEATS);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'] });
  console.log(`${SEATS} seats, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  try {
    for (let run = 0; run < RUNS; run++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.addInitScript('globalThis.__name = (f) => f;');
      await page.goto(`${service.origin}/`);
      const cdp = await page.context().newCDPSession(page);
      if (CPU) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
        await cdp.send('Profiler.start');
      }
      const times = await initToMapTimes(page, SEATS);
      const result = await page.evaluate(({ t0, drawn, interactive }) => {
        const marks: [string, number][] = performance.getEntriesByType('mark').map((m) => [m.name, m.startTime - t0]);
        marks.push(['drawn seen by poll', drawn - t0]);
        const resources = (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
          .filter((r) => r.startTime >= t0)
          .map((r) => [r.name.replace(/^.*\/bench\//, ''), r.startTime - t0, r.responseEnd - t0, r.encodedBodySize] as [string, number, number, number]);
        return { total: interactive - t0, marks, resources };
      }, times);
      console.log(`run ${run + 1}: init -> interactive ${result.total.toFixed(0)} ms`);
      for (const [name, start, end, size] of result.resources) console.log(`  request ${name.padEnd(60)} ${start.toFixed(0).padStart(5)} -> ${end.toFixed(0).padStart(5)} ms  ${(size / 1024).toFixed(0)} KB`);
      for (const [name, at] of result.marks.sort((a, b) => a[1] - b[1])) console.log(`  mark ${name.padEnd(40)} ${at.toFixed(1)} ms`);
      if (!CPU) {
        await page.close();
        continue;
      }
      const { profile } = (await cdp.send('Profiler.stop')) as { profile: { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number } };
      // Self time by function over the profile.
      const byId = new Map(profile.nodes.map((n) => [n.id, n]));
      const self = new Map<string, number>();
      let total = 0;
      profile.samples.forEach((id, i) => {
        const n = byId.get(id)!;
        const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
        const key = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url ? `${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}` : ''}`;
        self.set(key, (self.get(key) ?? 0) + dt);
        total += dt;
      });
      // Inclusive time by function (each sample counted once per distinct function on its stack).
      const parent = new Map<number, number>();
      for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
      const incl = new Map<string, number>();
      profile.samples.forEach((id, i) => {
        const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
        const seen = new Set<string>();
        for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
          const n = byId.get(cur)!;
          const key = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url ? `${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}` : ''}`;
          if (seen.has(key)) continue;
          seen.add(key);
          incl.set(key, (incl.get(key) ?? 0) + dt);
        }
      });
      if (process.env.LINES) {
        // Hot lines of the named functions (sampled ticks by source line of the unminified build).
        const lines = new Map<string, number>();
        for (const n of profile.nodes) {
          if (!process.env.LINES.split(',').includes(n.callFrame.functionName)) continue;
          for (const t of n.positionTicks ?? []) lines.set(`${n.callFrame.functionName}:${t.line}`, (lines.get(`${n.callFrame.functionName}:${t.line}`) ?? 0) + t.ticks);
        }
        const src = code.split('\n');
        for (const [k, v] of [...lines.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`    ${String(v).padStart(5)} ticks  ${k}  ${src[Number(k.split(':')[1]) - 1]?.trim().slice(0, 110)}`);
      }
      if (process.env.INCL) {
        console.log('  inclusive:');
        for (const [k, v] of [...incl.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.INCL))) console.log(`    ${v.toFixed(1).padStart(6)} ms  ${k}`);
      }
      const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25);
      console.log(`  self time, top functions (profile ${total.toFixed(0)} ms, from before init to after the frame):`);
      for (const [k, v] of top) console.log(`    ${v.toFixed(1).padStart(6)} ms  ${k}`);
      await page.close();
    }
  } finally {
    await browser.close();
    await service.close();
  }
}

void main();

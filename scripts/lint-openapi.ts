// npm run lint:openapi: lints the OpenAPI document the service serves (/api/openapi.json) with
// `redocly lint` and the rules of redocly.yaml (its recommended set). The document is generated
// from the route schemas, so it is linted as served: the app is built on an in-memory PGlite, the
// document written to a temporary file, and the script exits non-zero on any error or warning.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { servedOpenApiDocument } from './served-openapi.js';

const ROOT = path.resolve(import.meta.dirname, '..');
/**
 * The document's `servers` entry is the deployment's PUBLIC_BASE_URL; the development default,
 * http://localhost:3000, is right on a laptop and is what the no-server-example.com rule exists to
 * catch in a published document, so the lint names a public address under the reserved `.invalid`
 * domain (RFC 2606) instead of switching the rule off.
 */
const PUBLIC_ADDRESS = 'https://tickets.taquilla.invalid';

/** What `redocly lint --format json` prints. */
interface LintReport {
  version: string;
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer?: string }> }>;
}

/** Runs redocly on `file`; redocly itself exits 0 on warnings, ours is a zero-warning bar. */
function lint(file: string): LintReport {
  // REDOCLY_BIN lets a machine without the devDependency point at another install of @redocly/cli.
  const bin = process.env.REDOCLY_BIN ?? path.join(ROOT, 'node_modules', '.bin', 'redocly');
  const result = spawnSync(bin, ['lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
    // No usage data leaves a developer's or CI's machine; no update banner in the output.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  if (result.error) throw result.error;
  if (!result.stdout.trim()) throw new Error(`redocly printed no report (exit ${result.status})`);
  return JSON.parse(result.stdout) as LintReport;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-openapi-'));
try {
  const file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(await servedOpenApiDocument(PUBLIC_ADDRESS), null, 2));
  const report = lint(file);
  for (const p of report.problems) console.log(`${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
  const { errors, warnings } = report.totals;
  console.log(`redocly ${report.version}: ${errors} errors, ${warnings} warnings in the served OpenAPI document`);
  process.exitCode = errors + warnings > 0 ? 1 : 0;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

// Turns `pg_dump --schema-only --no-owner --no-privileges --exclude-table=schema_migrations` of a
// freshly migrated database into a baseline migration (docs/architecture.md "Migrations"):
//
//   pg_dump -h 127.0.0.1 -U postgres --schema-only --no-owner --no-privileges \
//     --exclude-table=schema_migrations <db> | npx tsx scripts/baseline-dump.ts > src/db/migrations/NNNN_baseline.sql
//
// The dump's session settings and psql meta-commands go (the migration runs inside the runner's
// transaction with the default search path; every name in the dump is schema-qualified). The
// function bodies stay in src/db/functions, which the runner applies after the migrations: a
// trigger function is created as a stub here (its trigger needs it to exist) and replaced there;
// no other object of the schema depends on a function (checked below), so the others are left out.
import fs from 'node:fs';

interface Block {
  type: string;
  name: string;
  lines: string[];
}

const text = fs.readFileSync(0, 'utf8');
const lines = text.split('\n');
const blocks: Block[] = [];
for (let i = 0; i < lines.length; i++) {
  const header = lines[i + 1]?.match(/^-- Name: (.+?); Type: ([A-Z ]+); Schema:/);
  if (lines[i] === '--' && header && lines[i + 2] === '--') {
    blocks.push({ type: header[2]!, name: header[1]!, lines: [] });
    i += 2;
    continue;
  }
  const line = lines[i]!;
  if (!blocks.length || line.startsWith('\\') || /^-- (PostgreSQL database dump complete|Dumped )/.test(line)) continue;
  blocks.at(-1)!.lines.push(line);
}

const KNOWN = new Set(['TYPE', 'TABLE', 'SEQUENCE', 'SEQUENCE OWNED BY', 'DEFAULT', 'CONSTRAINT', 'FK CONSTRAINT', 'INDEX', 'TRIGGER', 'FUNCTION']);
const unknown = blocks.filter((b) => !KNOWN.has(b.type));
if (unknown.length) throw new Error(`baseline-dump: object types this script does not know: ${[...new Set(unknown.map((b) => b.type))].join(', ')} (a view or a default that calls a function needs its function's body here)`);

const out: string[] = [];
for (const block of blocks) {
  const body = block.lines.join('\n').trim();
  if (block.type === 'FUNCTION') {
    const signature = body.match(/^CREATE FUNCTION (\S+\(\)) RETURNS trigger$/m);
    if (!signature) continue;
    out.push(`-- FUNCTION ${block.name}: a stub; its body is in src/db/functions`);
    out.push(`CREATE FUNCTION ${signature[1]} RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;`, '');
    continue;
  }
  out.push(`-- ${block.type} ${block.name}`, body, '');
}
process.stdout.write(out.join('\n'));

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importSchemaJson, SCHEMA_FILE } from '../../scripts/generate-import-schema.js';
import { ERROR_CODES } from '../../src/http/errors.js';
import { importCatalogue, validateCatalogue } from '../../src/modules/catalogue/import.service.js';
import { findChannelBySlug } from '../../src/modules/channels/channels.repo.js';
import { channelEventIds } from '../../src/modules/channels/channels.service.js';
import { buildTestApp, type TestApp } from '../helpers.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('docs/catalogue-import.schema.json', () => {
  it('is what npm run docs:schema generates from the import schema (run it after changing import.schemas.ts)', () => {
    expect(fs.readFileSync(SCHEMA_FILE, 'utf8')).toBe(importSchemaJson());
    const schema = JSON.parse(importSchemaJson());
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.required).toEqual(['organisers', 'venues', 'events']);
  });
});

describe('import examples', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  }, 180_000);
  afterAll(() => t.close());

  it('examples/catalogue.example.json imports cleanly, next to the demo catalogue', async () => {
    const doc = JSON.parse(read('examples/catalogue.example.json'));
    expect(validateCatalogue(doc)).toBeNull();
    const summary = await importCatalogue(t.ctx, doc);
    expect(summary).toMatchObject({ organisers: 1, venues: 1, seats: 42, events: 1, sessions: 2, rates: 5, vouchers: 2, channels: 2 });
    expect(summary.changes.created).toEqual({ organisers: 1, venues: 1, events: 1, sessions: 2, rates: 5, vouchers: 2, channels: 2 });
    const citypass = await findChannelBySlug(t.ctx.db, 'citypass');
    expect(citypass).toMatchObject({ integrationMode: 'widget_external_payment', cartTtlSeconds: 600, defaultLang: 'en' });
    expect(await channelEventIds(t.ctx, citypass!.id)).toHaveLength(1);
    // its import_key makes the README's step safe to repeat: the second run changes nothing (issue 29)
    const again = await importCatalogue(t.ctx, doc);
    expect(again.changes.created).toEqual({ organisers: 0, venues: 0, events: 0, sessions: 0, rates: 0, vouchers: 0, channels: 0 });
    expect(again.changes.unchanged).toEqual({ organisers: 1, venues: 1, events: 1, sessions: 2, rates: 5, vouchers: 2, channels: 2 });
  });

  it('the complete document in docs/catalogue-import.md imports cleanly', async () => {
    const blocks = [...read('docs/catalogue-import.md').matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const doc = JSON.parse(blocks.at(-1)!);
    expect(await importCatalogue(t.ctx, doc)).toMatchObject({ seats: 10, sessions: 1, rates: 2, vouchers: 1, channels: 1 });
  });

  it('errors are reported by path, as the doc shows', async () => {
    const doc = JSON.parse(read('examples/catalogue.example.json'));
    doc.events[0].sessions[0].rates[0].price = 1.005;
    // The schema checks shapes; an amount's decimals are checked in minor units by the import (D56).
    const refused = await importCatalogue(t.ctx, doc).then(
      () => null,
      (err: { fields?: Record<string, string[]> }) => err.fields ?? {},
    );
    const fields = Object.keys(validateCatalogue(doc) ?? refused ?? {});
    expect(fields.some((f) => f.endsWith('.price')), fields.join(', ')).toBe(true);
  });
});

describe('docs/errors.md', () => {
  it('lists every code of src/http/errors.ts with its status', () => {
    const doc = read('docs/errors.md');
    const missing = Object.entries(ERROR_CODES).filter(([code, status]) => !doc.includes(`| \`${code}\` | ${status} |`));
    expect(missing).toEqual([]);
  });
});

describe('links', () => {
  it('every relative link of README.md and docs/*.md points to a file that exists', () => {
    const files = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const broken: string[] = [];
    for (const file of files) {
      for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!) || target!.startsWith('#')) continue;
        const resolved = path.resolve(ROOT, path.dirname(file), target!.split('#')[0]!);
        if (!fs.existsSync(resolved)) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

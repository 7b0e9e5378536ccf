import fs from 'node:fs/promises';
import path from 'node:path';
import { Type } from 'typebox';
import { AppError } from '../../http/errors.js';
import { CLI_ACTOR } from '../../platform/actor.js';
import { createLayoutAs, createVenueAs, getLayoutFor, listVenueViewsFor } from '../../modules/catalogue/layouts.service.js';
import { defineCommand, defineListCommand } from '../command.js';
import { printJson } from '../output.js';
import { idOption } from './options.js';

// Venues and their layout versions from the operator command line (D64, docs/venues.md): the same
// use cases as the admin API, acting as an admin.

const FORMAT = {
  type: 'string',
  placeholder: '<taquilla|pretix>',
  help: 'the plan format (default taquilla)',
  schema: Type.Union([Type.Literal('taquilla'), Type.Literal('pretix')]),
  problem: 'must be taquilla or pretix',
} as const;
const VENUE = idOption('the venue (venues:list)');

const list = defineListCommand({
  name: 'venues:list',
  summary: 'List venues with their newest layout version',
  rows: (ctx) => listVenueViewsFor(ctx, CLI_ACTOR),
  table: (v) => ({ id: v.id, organiser: v.organiser_id, name: v.name, city: v.city ?? '', version: v.layout_version ?? '-', sectors: v.sectors.length }),
});
const create = defineCommand({
  name: 'venues:create',
  summary: 'Create a venue (then layouts:import gives it a seat map)',
  options: {
    name: { type: 'string', required: true, placeholder: '<name>', help: "the venue's name" },
    'organiser-id': idOption('the organiser it belongs to (organisers:list)'),
    city: { type: 'string', placeholder: '<city>', help: 'the city' },
    address: { type: 'string', placeholder: '<address>', help: 'the street address' },
  },
  async run(ctx, { values }) {
    const venue = await createVenueAs(ctx, CLI_ACTOR, { name: values.name, organiser_id: Number(values['organiser-id']), city: values.city ?? null, address: values.address ?? null });
    console.log(`venue ${venue.id} created: ${venue.name}`);
  },
});

const importLayout = defineCommand({
  name: 'layouts:import',
  summary: "Save a venue's next layout version from a Taquilla layout or a pretix seating plan file",
  positionals: [{ name: 'plan.json', required: true, help: 'the plan' }],
  options: { venue: VENUE, format: FORMAT },
  async run(ctx, { values, positionals }) {
    const file = path.resolve(positionals[0]!);
    let plan: unknown;
    try {
      plan = JSON.parse(await fs.readFile(file, 'utf8'));
    } catch (err) {
      throw new AppError('bad_request.unreadable_json', { file, reason: (err as Error).message });
    }
    const saved = await createLayoutAs(ctx, CLI_ACTOR, Number(values.venue), { format: (values.format ?? 'taquilla') as 'taquilla' | 'pretix', plan: plan as Record<string, unknown> });
    console.log(`venue ${saved.venue_id}: layout version ${saved.version} saved; sessions moved onto it: ${saved.sessions_moved.join(', ') || 'none'}`);
  },
});

const exportLayout = defineCommand({
  name: 'layouts:export',
  summary: 'Print one layout version as JSON, as a Taquilla layout or a pretix seating plan',
  options: {
    venue: VENUE,
    version: idOption('the version (1, 2, ...)', '<n>'),
    format: FORMAT,
  },
  async run(ctx, { values }) {
    const layout = await getLayoutFor(ctx, CLI_ACTOR, Number(values.venue), Number(values.version), (values.format ?? 'taquilla') as 'taquilla' | 'pretix');
    printJson(layout.plan);
  },
});

export const commands = [list, create, importLayout, exportLayout];

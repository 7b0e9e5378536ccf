// The ticket join in one place (issue 26): an order item's place (sector, session seat, venue seat,
// rate) is joined by itemPlaceJoins alone. The queries that use it are tested through their routes
// (check-in, tickets, admin orders, attendees, personal data) on both databases.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PgDialect } from 'drizzle-orm/pg-core';
import { itemPlaceJoins } from '../../src/db/ticket-place.js';

const dialect = new PgDialect();
const text = (what: Parameters<typeof itemPlaceJoins>[0]) => dialect.sqlToQuery(itemPlaceJoins(what)).sql;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? sourceFiles(p) : /\.tsx?$/.test(d.name) ? [p] : [];
  });
}

describe('itemPlaceJoins', () => {
  it('joins the place always, the event, session and venue on request, in the order of the foreign keys', () => {
    expect(text({})).toBe(
      'JOIN sectors sec ON sec.id = i.sector_id JOIN session_seats ss ON ss.id = i.session_seat_id LEFT JOIN seats st ON st.id = ss.seat_id JOIN rates r ON r.id = i.rate_id',
    );
    expect(text({ session: true })).toMatch(/^JOIN sessions s ON s\.id = i\.session_id JOIN sectors sec /);
    expect(text({ event: true, session: true })).toMatch(/^JOIN events e ON e\.id = i\.event_id JOIN sessions s ON s\.id = i\.session_id JOIN sectors /);
    // a venue needs its session
    expect(text({ venue: true })).toMatch(/^JOIN sessions s ON s\.id = i\.session_id JOIN venues v ON v\.id = s\.venue_id JOIN sectors /);
  });

  it('is the only place in src that joins an order item to its session seat', () => {
    const root = path.resolve(__dirname, '../../src');
    const again = sourceFiles(root)
      .filter((f) => !f.endsWith(path.join('db', 'ticket-place.ts')))
      .filter((f) => /JOIN\s+session_seats\s+ss\s+ON\s+ss\.id\s*=\s*i\.session_seat_id/i.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(root, f));
    expect(again).toEqual([]);
  });
});

import type { Request } from 'playwright-core';
import { expect } from 'vitest';

// What the waiting-room browser tests (portal and widget) check of the page's calls to the queue API.

/** A waiting-room API request as "METHOD /path?query", the path after the session's id. */
export const queueCall = (r: Request) => `${r.method()} ${new URL(r.url()).pathname.replace(/^.*\/sessions\/\d+/, '')}${new URL(r.url()).search}`;

/** The calls after the draw: the number came with the poll that names the ticket, with no second join. */
export function expectNumberFromPoll(afterDraw: string[]): void {
  expect(afterDraw.some((c) => /^GET \?ticket_id=[A-Za-z0-9]+$/.test(c)), afterDraw.join(', ')).toBe(true);
  expect(afterDraw.filter((c) => c.startsWith('POST /join'))).toEqual([]);
}

import { describe, expect } from 'vitest';
import { httpDate } from '../../src/http/service-date.js';
import { appTest, bearer, DEMO, tokenFor } from '../helpers.js';

// Every answer's Date header is the app's clock (src/http/service-date.ts): the buyer's browser runs
// its countdowns on it (ui/service-clock.ts), so it must say the same time as the bodies' times.
// The test's manual clock is put ten minutes ahead of Node's, so that Node's own Date would differ.

const { it } = appTest();

describe('the Date header is the service\'s clock', () => {
  it('on the B2B interface (success, refusal, unknown route), the portal, the waiting room and the health check; readable by other origins', async ({ t }) => {
    t.clock.set(new Date(Date.now() + 10 * 60_000));
    const expected = () => httpDate(t.clock.now().getTime());
    const token = await tokenFor(t.app, DEMO.a.slug);
    const answers = [
      await t.app.inject({ url: `/api/sales-channel/v1/${DEMO.a.slug}/es/events`, headers: { ...bearer(token), origin: 'https://partner.example' } }),
      await t.app.inject({ url: `/api/sales-channel/v1/${DEMO.a.slug}/es/events` }),
      await t.app.inject({ url: '/api/sales-channel/v1/no-such-route' }),
      await t.app.inject({ url: `/${DEMO.a.slug}/es/events` }),
      await t.app.inject({ url: '/api/queue/v1/sessions/999999' }),
      await t.app.inject({ url: '/healthz' }),
    ];
    expect(answers.map((a) => a.statusCode)).toEqual([200, 401, 404, 200, 404, 200]);
    for (const a of answers) expect(a.headers.date).toBe(expected());
    expect(String(answers[0]!.headers['access-control-expose-headers']).split(', ')).toContain('Date');
  });
});

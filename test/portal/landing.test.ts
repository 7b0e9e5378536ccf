import { afterAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers.js';

// Issue 16: `/` in production names no channel; it redirects where the operator says, if they say.

const PRODUCTION = {
  APP_ENV: 'production',
  SIGNING_SECRET: 'x'.repeat(40),
  DEMO_DATA: 'false',
  STRIPE_SECRET_KEY: 'sk_test_landing',
  STRIPE_WEBHOOK_SECRET: 'whsec_landing',
  PUBLIC_BASE_URL: 'https://tickets.example',
};

const apps: TestApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

describe('the landing page in production', () => {
  it('without LANDING_REDIRECT_URL: a minimal page, no channel listed', async () => {
    const t = await buildTestApp({ env: PRODUCTION, demo: false });
    apps.push(t);
    const res = await t.app.inject({ url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('<h1>Taquilla</h1>');
    expect(res.body).not.toContain('landing-channels');
    expect(res.body).not.toContain('/admin');
  }, 300_000);

  it('with LANDING_REDIRECT_URL: a redirect there', async () => {
    const t = await buildTestApp({ env: { ...PRODUCTION, LANDING_REDIRECT_URL: 'https://www.example.com/entradas' }, demo: false });
    apps.push(t);
    const res = await t.app.inject({ url: '/' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://www.example.com/entradas');
  }, 300_000);
});

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_SCHEMA_FILE, generateClientSchema } from '../../scripts/generate-client.js';

// CI fails while the checked-in types of the typed client lag behind the API: a route schema was
// changed without `npm run client:generate`.
describe('typed client (clients/typescript)', () => {
  it('schema.ts is what npm run client:generate makes of the served OpenAPI document', async () => {
    const fresh = await generateClientSchema();
    expect(fs.readFileSync(CLIENT_SCHEMA_FILE, 'utf8') === fresh, 'clients/typescript/schema.ts is stale: run npm run client:generate').toBe(true);
  }, 120_000);
});

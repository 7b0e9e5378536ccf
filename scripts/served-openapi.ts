import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';

/**
 * The OpenAPI document as a deployment serves it at /api/openapi.json: the app is built on an
 * in-memory PGlite and asked over HTTP, so what scripts lint or generate from is what integrators
 * download. `publicBaseUrl` becomes the document's `servers` entry.
 */
export async function servedOpenApiDocument(publicBaseUrl: string): Promise<unknown> {
  const database = await openDatabase({ pgliteDir: 'memory://' });
  const config = loadConfig({ APP_ENV: 'test', PUBLIC_BASE_URL: publicBaseUrl });
  const app = await buildApp({ config, database, logger: false });
  try {
    const res = await app.inject({ url: '/api/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`/api/openapi.json answered ${res.statusCode}`);
    return res.json();
  } finally {
    await app.close();
    await database.close();
  }
}

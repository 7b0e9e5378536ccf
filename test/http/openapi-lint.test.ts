// The served OpenAPI document, operation by operation: what `redocly lint` (scripts/lint-openapi.ts)
// asks of each one, and what generated clients and integrators rely on. Table-driven over the
// document itself, so a new route without an operationId, a summary or input bounds fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers.js';

interface Schema {
  $ref?: string;
  type?: string | string[];
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}
interface Operation {
  operationId?: string;
  summary?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; schema: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { $ref?: string }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; responses: Record<string, { content: Record<string, { schema: Schema }> }> };
}
interface Entry {
  method: string;
  path: string;
  op: Operation;
}

let t: TestApp;
let doc: Document;
let operations: Entry[];
/** "METHOD /url" of every route that declares rate limits (config.rateLimits); the document has no HEAD copies. */
let LIMITED: Set<string>;
beforeAll(async () => {
  t = await buildTestApp({ demo: false });
  LIMITED = new Set(t.app.routePolicies.routes.filter((r) => r.rateLimits.length > 0 && r.method !== 'HEAD').map((r) => `${r.method} ${r.url}`));
  doc = (await t.app.inject({ url: '/api/openapi.json' })).json();
  operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method, path, op })));
}, 180_000);
afterAll(() => t.close());

const name = ({ method, path }: Entry) => `${method.toUpperCase()} ${path}`;

describe('served OpenAPI: every operation', () => {
  it('lists the operations of every API (a sanity floor for the checks below)', () => {
    const prefixes = ['/api/sales-channel/v1/{salesChannelSlug}/', '/api/sales-channel/v1/auth/', '/api/portal/', '/api/tickets/', '/api/admin/v1/'];
    for (const prefix of prefixes) expect(operations.some((e) => e.path.startsWith(prefix)), prefix).toBe(true);
  });

  it('has a camelCase operationId, unique in the document, and a summary', () => {
    const problems: string[] = [];
    const seen = new Map<string, string>();
    for (const e of operations) {
      const id = e.op.operationId;
      if (!id || !/^[a-z]+[A-Za-z0-9]*$/.test(id)) problems.push(`${name(e)}: operationId ${JSON.stringify(id)}`);
      else if (seen.has(id)) problems.push(`${name(e)}: operationId ${id} also names ${seen.get(id)}`);
      else seen.set(id, name(e));
      if (!e.op.summary?.trim()) problems.push(`${name(e)}: no summary`);
    }
    expect(problems).toEqual([]);
  });

  it('declares who may call it: the channel bearer token, the admin API token, a check-in device token, or nobody (public)', () => {
    const expected = (path: string) =>
      path.startsWith('/api/sales-channel/v1/{salesChannelSlug}/')
        ? [{ bearer: [] }]
        : path.startsWith('/api/admin/v1/')
          ? [{ adminToken: [] }]
          : path.startsWith('/api/checkin/v1/')
            ? [{ deviceToken: [] }]
            : [];
    const wrong = operations.filter((e) => JSON.stringify(e.op.security) !== JSON.stringify(expected(e.path))).map(name);
    expect(wrong).toEqual([]);
  });

  it('is truthful about security: each secured operation answers 401 without a token', async () => {
    const sample: Record<string, string> = { salesChannelSlug: 'demo-a', lang: 'en', orderToken: 'no-such-order', voucherCode: 'NOPE' };
    const wrong: string[] = [];
    for (const e of operations.filter((o) => o.op.security?.length)) {
      const url = e.path.replace(/\{(\w+)\}/g, (_m, p: string) => sample[p] ?? '1');
      const res = await t.app.inject({ method: e.method.toUpperCase() as 'GET', url, payload: e.op.requestBody ? {} : undefined });
      if (res.statusCode !== 401) wrong.push(`${name(e)}: ${res.statusCode}`);
    }
    expect(wrong).toEqual([]);
  });

  it('documents 500 and 503, and 429 exactly where a rate limit guards the route (D4 envelope)', () => {
    const problems: string[] = [];
    for (const e of operations) {
      const { responses } = e.op;
      if (responses['500']?.$ref !== '#/components/responses/InternalError') problems.push(`${name(e)}: 500`);
      if (responses['503']?.$ref !== '#/components/responses/ServiceUnavailable') problems.push(`${name(e)}: 503`);
      const limited = LIMITED.has(`${e.method.toUpperCase()} ${e.path.replace(/\{(\w+)\}/g, ':$1')}`);
      if (limited !== (responses['429']?.$ref === '#/components/responses/TooManyRequests')) problems.push(`${name(e)}: 429 (limited: ${limited})`);
    }
    expect(problems).toEqual([]);
    // every limited route of the APIs is in the document (the declarations and the paths meet)
    const limitedApiRoutes = [...LIMITED].filter((route) => route.split(' ')[1]!.startsWith('/api/'));
    for (const route of limitedApiRoutes) {
      const [method, url] = route.split(' ') as [string, string];
      expect(doc.paths[url.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()], route).toBeDefined();
    }
    for (const shared of ['TooManyRequests', 'InternalError', 'ServiceUnavailable']) {
      expect(doc.components.responses[shared]!.content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
    }
    expect(Object.keys(doc.components.schemas.ErrorEnvelope!.properties!)).toEqual(['status', 'success', 'message', 'code', 'errors', 'data']);
  });

  it('bounds its inputs (D47): every string has a maxLength (or enum, const, date format), every number a lower and an upper bound', () => {
    const unbounded: string[] = [];
    const walk = (s: Schema | undefined, where: string, seen: Set<string>): void => {
      if (!s || typeof s !== 'object') return;
      if (s.$ref) {
        const ref = s.$ref.split('/').pop()!;
        if (!seen.has(ref)) walk(doc.components.schemas[ref], where, new Set([...seen, ref]));
        return;
      }
      const types = [s.type ?? []].flat();
      const fixed = s.enum !== undefined || s.const !== undefined;
      if (types.includes('string') && !fixed && s.maxLength === undefined && !['date', 'date-time'].includes(s.format ?? '')) unbounded.push(`${where}: string`);
      const below = s.minimum ?? s.exclusiveMinimum;
      const above = s.maximum ?? s.exclusiveMaximum;
      if ((types.includes('integer') || types.includes('number')) && !fixed && (below === undefined || above === undefined)) unbounded.push(`${where}: ${types.join('|')}`);
      for (const [key, value] of Object.entries(s.properties ?? {})) walk(value, `${where}.${key}`, seen);
      if (typeof s.items === 'object') walk(s.items, `${where}[]`, seen);
      if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${where}{}`, seen);
      for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) walk(branch, where, seen);
    };
    for (const e of operations) {
      for (const p of e.op.parameters ?? []) walk(p.schema, `${name(e)} ${p.in} ${p.name}`, new Set());
      for (const c of Object.values(e.op.requestBody?.content ?? {})) walk(c.schema, `${name(e)} body`, new Set());
    }
    expect(unbounded).toEqual([]);
  });
});

describe('served OpenAPI in development', () => {
  it('leaves out the example channel pages mounted under /widget/examples (a development aid, not the API); every operation left has its operationId', async () => {
    const dev = await buildTestApp({ demo: false, env: { APP_ENV: 'development' } });
    try {
      expect((await dev.app.inject({ url: '/widget/examples/model-c.html' })).statusCode).toBe(200);
      const devDoc = (await dev.app.inject({ url: '/api/openapi.json' })).json() as Document;
      const paths = Object.keys(devDoc.paths);
      expect(paths.filter((p) => p.startsWith('/widget/examples'))).toEqual([]);
      // The same operations as the test deployment's document, each with its operationId.
      const devOperations = Object.entries(devDoc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method, path, op })));
      expect(devOperations.filter((e) => !e.op.operationId).map(name)).toEqual([]);
      expect(devOperations.map((e) => `${name(e)} ${e.op.operationId}`).sort()).toEqual(operations.map((e) => `${name(e)} ${e.op.operationId}`).sort());
    } finally {
      await dev.close();
    }
  }, 180_000);
});

// Every merchant route says where it is defined what an API key needs to call it (`config: { apiKeyScope }` or
// `config: { sessionOnly }`, domain/merchant/api-keys.ts RouteAuth): this walks every route the app registers with
// `onRequest: app.authenticate`, holds the dashboard's copy of the declarations (domain/merchant/route-auth.ts, generated) to the
// routes, and checks that the guard refusing an undeclared or wrongly declared route at start-up still refuses it. (The
// declarations replaced a URL table; the commit that made them held each one to the table's scope for its route.) It
// also holds the OpenAPI document to the declarations.
// (Scopes enforced on real requests: api/routes/merchant/api-keys.test.ts.) No database is needed: routes register
// without one.
import { readFile } from 'node:fs/promises';
import Fastify, { type FastifyInstance } from 'fastify';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { buildApp } from '../../api/app.js';
import { createDb, type Db } from '../../prisma/client.js';
import { authPlugin } from '../../api/plugins/auth.js';
import { rateLimitsPlugin } from '../../api/plugins/rate-limits.js';
import { SDK_DOCUMENT_ENV } from '../../scripts/openapi-document.js';
import { keyPolicyOf, routeAuthOf, routeKeyPolicy } from '../../domain/merchant/route-rights.js';
import { ROUTE_AUTH_FILE, routeAuthText } from '../../scripts/route-auth.js';

let app: FastifyInstance;
let db: Db;
let connection: Connection;

beforeAll(async () => {
  const config = loadConfig({ ...SDK_DOCUMENT_ENV });
  db = createDb(config.databaseUrl!);
  connection = Connection.lazy({ address: '127.0.0.1:1' });
  app = await buildApp({ config, db, temporal: { client: new Client({ connection }), connection }, logger: false });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await db?.$disconnect();
  await connection?.close().catch(() => undefined);
});

describe('the routes\' declarations', () => {
  it('are what the dashboard reads: domain/merchant/route-auth.ts is generated from them (npm run routes:auth)', async () => {
    expect(app.authenticatedRoutes.length).toBeGreaterThan(60);
    expect(await readFile(ROUTE_AUTH_FILE, 'utf8'), 'domain/merchant/route-auth.ts is stale: npm run routes:auth').toBe(routeAuthText(app));
    for (const r of app.authenticatedRoutes) expect(routeAuthOf(r.method, r.url), `${r.method} ${r.url}`).toEqual(r.auth);
    expect(routeAuthOf('GET', '/api/merchant/something-undeclared')).toBeUndefined();
    // GET routes get a HEAD twin from Fastify; it reads with the same scope.
    for (const r of app.authenticatedRoutes.filter((x) => x.method === 'HEAD')) {
      expect(r.auth).toEqual(app.authenticatedRoutes.find((g) => g.method === 'GET' && g.url === r.url)!.auth);
    }
  });

  it('keeps key management and the account\'s credentials session-only', () => {
    for (const [method, url] of [
      ['GET', '/api/merchant/api-keys'], ['POST', '/api/merchant/api-keys'], ['POST', '/api/merchant/api-keys/:id/roll'], ['DELETE', '/api/merchant/api-keys/:id'],
      ['PATCH', '/api/merchant/account'], ['POST', '/api/auth/logout-all'],
    ] as const) {
      expect(routeKeyPolicy(method, url), `${method} ${url}`).toEqual({ kind: 'session-only' });
    }
    expect(routeKeyPolicy('POST', '/api/merchant/webhooks/endpoints/:id/replay')).toEqual({ kind: 'scope', scope: 'webhooks:write' });
    expect(routeKeyPolicy('GET', '/api/merchant/webhooks/endpoints')).toEqual({ kind: 'scope', scope: 'webhooks:read' });
  });

  it('refuses at start-up a route that authenticates merchants without a right declaration', async () => {
    const boot = async (method: 'get' | 'post', config: Record<string, unknown>) => {
      const probe = Fastify({ logger: false });
      try {
        await probe.register(rateLimitsPlugin, { apiKey: { max: 1, windowSeconds: 1 } });
        await probe.register(authPlugin, { db, secret: 'x'.repeat(40), secureCookie: false, appOrigin: 'http://localhost:3000', apiKeyMode: 'test' });
        await probe.register(async (scope) => {
          scope[method]('/api/merchant/something-new', { onRequest: scope.authenticate, config }, async () => ({}));
        });
        await probe.ready();
        return probe.authenticatedRoutes.map((r) => `${r.method} ${r.url} ${JSON.stringify(r.auth)}`);
      } finally {
        await probe.close().catch(() => undefined);
      }
    };
    await expect(boot('get', {})).rejects.toThrow(/GET \/api\/merchant\/something-new authenticates merchants but declares neither/);
    await expect(boot('get', { apiKeyScope: 'orders:read', sessionOnly: ['owner'] })).rejects.toThrow(/declares neither .* or both/);
    await expect(boot('get', { apiKeyScope: 'orders:write' })).rejects.toThrow(/declares orders:write, but a GET route reads: orders:read/);
    await expect(boot('post', { apiKeyScope: 'orders:read' })).rejects.toThrow(/declares orders:read, but a POST route writes: orders:write/);
    await expect(boot('post', { apiKeyScope: 'everything:write' })).rejects.toThrow(/not an API key scope/);
    await expect(boot('post', { sessionOnly: [] })).rejects.toThrow(/session-only for no role/);
    // Declared: it registers, its HEAD twin with it.
    expect(await boot('get', { apiKeyScope: 'webhooks:read' })).toEqual([
      'GET /api/merchant/something-new {"apiKeyScope":"webhooks:read"}', 'HEAD /api/merchant/something-new {"apiKeyScope":"webhooks:read"}',
    ]);
    expect(await boot('post', { sessionOnly: ['owner'] })).toEqual(['POST /api/merchant/something-new {"sessionOnly":["owner"]}']);
  });
});

type Operation = { security?: Array<Record<string, unknown>>; parameters?: Array<{ in: string; name: string }>; description?: string; 'x-required-scope'?: string; 'x-session-only'?: boolean };

describe('the OpenAPI document', () => {
  it('states each bearer operation\'s scope (or that it is session-only) as its route declares it, and the Idempotency-Key of each bearer POST', () => {
    const doc = app.swagger() as unknown as { paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, { description?: string }> } };
    expect(doc.components.securitySchemes.bearerAuth!.description).toMatch(/ck_live_.*ck_test_/);
    const problems: string[] = [];
    let bearer = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!op.security?.some((s) => 'bearerAuth' in s)) continue;
        bearer++;
        const url = path.replace(/\{([^}]+)\}/g, ':$1');
        const policy = keyPolicyOf(app.authenticatedRoutes.find((r) => r.method === method.toUpperCase() && r.url === url)?.auth);
        const stated = op['x-required-scope'] ?? (op['x-session-only'] ? 'session-only' : 'nothing');
        // A bearer operation that does not authenticate merchants (logout ends whatever session it is given) is session-only.
        const expected = policy.kind === 'scope' ? policy.scope : 'session-only';
        if (stated !== expected) problems.push(`${method} ${path}: states ${stated}, the route declares ${expected}`);
        if (!op.description?.includes(policy.kind === 'scope' ? `\`${policy.scope}\`` : 'Dashboard sessions only')) problems.push(`${method} ${path}: description`);
        const idem = op.parameters?.some((p) => p.in === 'header' && p.name === 'idempotency-key') ?? false;
        if (idem !== (method === 'post')) problems.push(`${method} ${path}: Idempotency-Key header ${idem ? 'on a non-POST' : 'missing'}`);
      }
    }
    expect(bearer).toBeGreaterThan(60);
    expect(problems).toEqual([]);
  });
});

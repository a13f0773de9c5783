// Every merchant route says what an API key needs to call it, in one table (domain/api-keys.ts): this walks every
// route the app registers with `onRequest: app.authenticate` and fails when one is neither scoped nor session-only,
// when the table names a route that no longer exists, or when the guard that refuses an unmapped route at start-up
// stops refusing it. It also holds the OpenAPI document to the table. (Scopes enforced on real requests:
// api/routes/merchant/api-keys.test.ts.) No database is needed: routes register without one.
import Fastify, { type FastifyInstance } from 'fastify';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { buildApp } from '../../api/app.js';
import { createDb, type Db } from '../../prisma/client.js';
import { authPlugin } from '../../api/plugins/auth.js';
import { rateLimitsPlugin } from '../../api/plugins/rate-limits.js';
import { SDK_DOCUMENT_ENV } from '../../scripts/openapi-document.js';
import { API_KEY_RESOURCES, ROUTE_RESOURCES, routeKeyPolicy, SESSION_ONLY_ROUTES } from '../../domain/api-keys.js';

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

describe('the route table', () => {
  it('covers every route that authenticates merchants: each needs a scope or is session-only', () => {
    expect(app.authenticatedRoutes.length).toBeGreaterThan(60);
    const unmapped = app.authenticatedRoutes.filter((r) => routeKeyPolicy(r.method, r.url).kind === 'unmapped');
    expect(unmapped).toEqual([]);
    // GET routes get a HEAD twin from Fastify; it reads with the same scope.
    for (const r of app.authenticatedRoutes.filter((x) => x.method === 'HEAD')) {
      expect(routeKeyPolicy('HEAD', r.url)).toEqual(routeKeyPolicy('GET', r.url));
    }
  });

  it('names only routes that exist (a prefix entry may wait for its routes)', () => {
    const registered = new Set(app.authenticatedRoutes.map((r) => `${r.method} ${r.url}`));
    const stale = [...API_KEY_RESOURCES.flatMap((r) => ROUTE_RESOURCES[r]), ...SESSION_ONLY_ROUTES].filter((e) => !e.endsWith('/**') && !registered.has(e));
    expect(stale).toEqual([]);
  });

  it('keeps key management and the account\'s credentials session-only', () => {
    for (const [method, url] of [
      ['GET', '/api/merchant/api-keys'], ['POST', '/api/merchant/api-keys'], ['POST', '/api/merchant/api-keys/:id/roll'], ['DELETE', '/api/merchant/api-keys/:id'],
      ['PATCH', '/api/merchant/account'], ['POST', '/api/auth/logout-all'],
    ] as const) {
      expect(routeKeyPolicy(method, url), `${method} ${url}`).toEqual({ kind: 'session-only' });
    }
    expect(routeKeyPolicy('POST', '/api/merchant/webhooks/:id/replay')).toEqual({ kind: 'scope', scope: 'webhooks:write' });
    expect(routeKeyPolicy('GET', '/api/merchant/webhooks')).toEqual({ kind: 'scope', scope: 'webhooks:read' });
  });

  it('refuses at start-up a route that authenticates merchants but is not in the table', async () => {
    const probe = Fastify({ logger: false });
    const boot = async (url: string) => {
      await probe.register(rateLimitsPlugin, { apiKey: { max: 1, windowSeconds: 1 } });
      await probe.register(authPlugin, { db, secret: 'x'.repeat(40), secureCookie: false, appOrigin: 'http://localhost:3000', apiKeyMode: 'test' });
      await probe.register(async (scope) => {
        scope.get(url, { onRequest: scope.authenticate }, async () => ({}));
      });
      await probe.ready();
    };
    await expect(boot('/api/merchant/something-new')).rejects.toThrow(/GET \/api\/merchant\/something-new .*domain\/api-keys\.ts/);
    await probe.close().catch(() => undefined);
    // The same route under a mapped URL registers.
    const mapped = Fastify({ logger: false });
    await mapped.register(rateLimitsPlugin, { apiKey: { max: 1, windowSeconds: 1 } });
    await mapped.register(authPlugin, { db, secret: 'x'.repeat(40), secureCookie: false, appOrigin: 'http://localhost:3000', apiKeyMode: 'test' });
    await mapped.register(async (scope) => {
      scope.get('/api/merchant/webhooks/anything', { onRequest: scope.authenticate }, async () => ({}));
    });
    await mapped.ready();
    expect(mapped.authenticatedRoutes.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/merchant/webhooks/anything', 'HEAD /api/merchant/webhooks/anything']);
    await mapped.close();
  });
});

type Operation = { security?: Array<Record<string, unknown>>; parameters?: Array<{ in: string; name: string }>; description?: string; 'x-required-scope'?: string; 'x-session-only'?: boolean };

describe('the OpenAPI document', () => {
  it('states each bearer operation\'s scope (or that it is session-only) as the table does, and the Idempotency-Key of each bearer POST', () => {
    const doc = app.swagger() as unknown as { paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, { description?: string }> } };
    expect(doc.components.securitySchemes.bearerAuth!.description).toMatch(/ck_live_.*ck_test_/);
    const problems: string[] = [];
    let bearer = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!op.security?.some((s) => 'bearerAuth' in s)) continue;
        bearer++;
        const policy = routeKeyPolicy(method.toUpperCase(), path.replace(/\{([^}]+)\}/g, ':$1'));
        const stated = op['x-required-scope'] ?? (op['x-session-only'] ? 'session-only' : 'nothing');
        const expected = policy.kind === 'scope' ? policy.scope : policy.kind;
        if (stated !== expected) problems.push(`${method} ${path}: states ${stated}, the table says ${expected}`);
        if (!op.description?.includes(policy.kind === 'scope' ? `\`${policy.scope}\`` : 'Dashboard sessions only')) problems.push(`${method} ${path}: description`);
        const idem = op.parameters?.some((p) => p.in === 'header' && p.name === 'idempotency-key') ?? false;
        if (idem !== (method === 'post')) problems.push(`${method} ${path}: Idempotency-Key header ${idem ? 'on a non-POST' : 'missing'}`);
      }
    }
    expect(bearer).toBeGreaterThan(60);
    expect(problems).toEqual([]);
  });
});

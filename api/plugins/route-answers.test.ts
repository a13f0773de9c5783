// What every route answers through the app's plugins rather than its handler: a method the path does not
// support is 405 METHOD_NOT_ALLOWED with an Allow header (api/plugins/method-not-allowed.ts), and the OpenAPI
// document lists each status the plugins can answer on each route (api/plugins/common-answers.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { createTestDatabase, type TestDatabase } from '../../test/harness/db.js';
import { testConfig } from '../../scripts/lib/stack/config.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let database: TestDatabase;
let app: FastifyInstance;
let doc: Json;
const config = testConfig();

beforeAll(async () => {
  database = await createTestDatabase();
  // No request here reaches Temporal: routing, validation and the document only.
  app = await buildApp({ config, db: database.db, temporal: { client: {} as never, connection: {} as never }, logger: false });
  await app.ready();
  doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as Json;
});
afterAll(async () => {
  await app?.close();
  await database?.drop();
});

const TOKEN = `cs_${'a'.repeat(32)}`;

describe('a method the path does not support', () => {
  it.each([
    ['TRACE', '/api/merchant/me', 'GET, HEAD'],
    ['QUERY', `/api/checkout/session/${TOKEN}`, 'GET, HEAD'],
    ['GET', '/api/auth/login', 'POST'],
    ['DELETE', '/api/merchant/discounts', 'GET, HEAD, POST'],
    ['PUT', `/api/checkout/${TOKEN}/pay`, 'POST'],
    ['OPTIONS', '/api/merchant/me', 'GET, HEAD'],
    ['TRACE', '/webhooks/storefront-a/app/uninstalled', 'POST'],
  ])('%s %s / 405 METHOD_NOT_ALLOWED with Allow: %s, before any body or auth is read', async (method, url, allow) => {
    const res = await app.inject({ method: method as 'GET', url, headers: { 'content-type': 'text/plain' }, payload: 'not json' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.json()).toEqual({ error: expect.stringContaining(`${method} is not allowed`), code: 'METHOD_NOT_ALLOWED' });
  });

  it('an unknown path is still 404 NOT_FOUND, whatever the method', async () => {
    for (const method of ['GET', 'POST', 'TRACE'] as const) {
      const res = await app.inject({ method, url: '/api/no-such-thing' });
      expect(res.statusCode, method).toBe(404);
      expect(res.json().code).toBe('NOT_FOUND');
    }
  });

  it('a CORS preflight from an allowed origin is still answered by the CORS plugin', async () => {
    const res = await app.inject({ method: 'OPTIONS', url: '/api/merchant/me', headers: { origin: config.appOrigin, 'access-control-request-method': 'GET' } });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(config.appOrigin);
  });
});

describe('the OpenAPI document lists what the plugins answer', () => {
  const operations = () =>
    Object.entries(doc.paths as Json).flatMap(([path, ops]) => Object.entries(ops as Json).map(([method, op]) => ({ path, method, op: op as Json })));

  it('on every operation: 403 (CORS) and 413 (body size), and each plugin\'s status as the Error schema', () => {
    expect(operations().length).toBeGreaterThan(80);
    for (const { path, method, op } of operations()) {
      const statuses = Object.keys(op.responses);
      expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['403', '413']));
      for (const status of statuses.filter((s) => ['400', '401', '403', '413', '414', '415', '429'].includes(s))) {
        expect(op.responses[status].content['application/json'].schema, `${method} ${path} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
  });

  it('400 and 414 where a path parameter is, 401 where bearer auth is, 400 and 415 where a body is, 429 where a limit is', () => {
    for (const { path, method, op } of operations()) {
      const statuses = Object.keys(op.responses);
      const where = `${method} ${path}`;
      if (path.includes('{')) expect(statuses, where).toEqual(expect.arrayContaining(['400', '414']));
      if (op.security?.length) expect(statuses, where).toContain('401');
      if (['post', 'put', 'patch', 'delete'].includes(method)) expect(statuses, where).toEqual(expect.arrayContaining(['400', '415']));
    }
    for (const path of ['/api/auth/login', '/api/auth/register', '/api/checkout/create', '/api/checkout/{token}/init-payment']) {
      expect(Object.keys(doc.paths[path].post.responses), path).toContain('429');
    }
  });

  it('a body that may be left out is not required; a signed webhook\'s JSON body is', () => {
    expect(doc.paths['/api/checkout/merchant/orders/{token}/refund'].post.requestBody.required).toBe(false);
    expect(doc.paths['/webhooks/processor/payment-update'].post.requestBody.required).toBe(true);
    expect(doc.paths['/webhooks/processor/platform-billing'].post.requestBody.required).toBe(true);
    expect(doc.paths['/api/merchant/discounts'].post.requestBody.required).toBe(true);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { inject } from 'vitest';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { buildApp } from './app.js';
import { createTestDatabase, type TestDatabase } from '../test/harness/db.js';
import { testConfig } from '../scripts/lib/stack/config.js';
import { AppError } from '../domain/errors.js';

let database: TestDatabase;
let connection: Connection;
let app: FastifyInstance;

beforeAll(async () => {
  database = await createTestDatabase();
  connection = await Connection.connect({ address: inject('temporalAddress') });
  app = await buildApp({ config: testConfig(), db: database.db, temporal: { client: new Client({ connection }), connection }, logger: false });
  // Routes that exist only in this test, to drive the shared plugins through real handlers.
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.post('/test/echo', { schema: { body: z.object({ name: z.string().min(2), qty: z.number().int().positive() }) } }, async (req) => req.body);
  typed.get('/test/boom', async () => {
    throw new Error('database password is hunter2');
  });
  typed.get('/test/app-error', async () => {
    throw new AppError('SLUG_COLLISION', 'That slug is taken');
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await connection?.close();
  await database?.drop();
});

const big = (bytes: number) => JSON.stringify({ name: 'x'.repeat(bytes), qty: 1 });

describe('health and readiness', () => {
  it('answers /health while the process is up', async () => {
    const res = await app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('answers /ready with both checks ok when the database and Temporal answer', async () => {
    const res = await app.inject({ method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok', checks: { database: { ok: true }, temporal: { ok: true } } });
  });
});

describe('error format', () => {
  it('given a body over 1 MB with its length declared / on any route, known or not / it answers 413 PAYLOAD_TOO_LARGE', async () => {
    for (const url of ['/test/echo', '/ready', '/no/such/route']) {
      const res = await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: big(1024 * 1024 + 10) });
      expect(res.statusCode, url).toBe(413);
      expect(res.json()).toEqual({ error: expect.stringContaining('1 MB'), code: 'PAYLOAD_TOO_LARGE' });
    }
  });

  it('given a chunked body over 1 MB (no length declared) / it answers 413 PAYLOAD_TOO_LARGE', async () => {
    const { Readable } = await import('node:stream');
    const res = await app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      payload: Readable.from([Buffer.from(big(1024 * 1024 + 10))]),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('given a body of just under 1 MB / it is accepted', async () => {
    const res = await app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload: big(1024 * 1024 - 100) });
    expect(res.statusCode).toBe(200);
  });

  it('given malformed JSON / it answers 400 INVALID_INPUT', async () => {
    const res = await app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload: '{"name": "ab", qty: ' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: expect.stringContaining('Malformed'), code: 'INVALID_INPUT' });
  });

  it('given a body that fails validation / it answers 400 INVALID_INPUT naming each field', async () => {
    const res = await app.inject({ method: 'POST', url: '/test/echo', payload: { name: 'a', qty: -1 } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('INVALID_INPUT');
    expect(Object.keys(body.details.fields).sort()).toEqual(['body.name', 'body.qty']);
  });

  it('given an unsupported content type / it answers 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/xml' }, payload: '<a/>' });
    expect(res.statusCode).toBe(415);
    expect(res.json().code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('given an unknown route / it answers 404 NOT_FOUND', async () => {
    const res = await app.inject({ method: 'GET', url: '/nope?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Route GET /nope not found', code: 'NOT_FOUND' });
  });

  it('given a handler that throws / it answers 500 without internals, with the request id', async () => {
    const res = await app.inject({ method: 'GET', url: '/test/boom', headers: { 'x-request-id': 'req-abcdef12' } });
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('hunter2');
    expect(res.json()).toEqual({ error: 'Internal server error (request id req-abcdef12)', code: 'INTERNAL_ERROR' });
    expect(res.headers['x-request-id']).toBe('req-abcdef12');
  });

  it('given an AppError / it answers its catalogue status and code', async () => {
    const res = await app.inject({ method: 'GET', url: '/test/app-error' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: 'That slug is taken', code: 'SLUG_COLLISION' });
  });

  it('gives every response a request id, generating one when the caller sent none or a malformed one', async () => {
    const a = await app.inject({ method: 'GET', url: '/health' });
    const b = await app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(a.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('CORS allowlist', () => {
  const allowed = ['https://shoes.localhost', 'http://shoes.localhost:3000', 'https://demo-shop.myshopify.com'];
  const refused = ['https://evil.example', 'https://localhost.evil.example', 'https://myshopify.com.evil.example', 'null', 'https://.myshopify.com'];

  it('allows the app origin (the dashboard) with credentials', async () => {
    const res = await app.inject({ method: 'GET', url: '/health', headers: { origin: 'http://localhost:3000' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
  });

  it.each(allowed)('allows %s and echoes it, without credentials', async (origin) => {
    const res = await app.inject({ method: 'GET', url: '/health', headers: { origin } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(origin);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it.each(refused)('refuses %s with 403 ORIGIN_NOT_ALLOWED', async (origin) => {
    const res = await app.inject({ method: 'POST', url: '/test/echo', headers: { origin }, payload: { name: 'ab', qty: 1 } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: `Origin ${origin} is not allowed`, code: 'ORIGIN_NOT_ALLOWED' });
  });

  it('answers an allowed preflight with 204 and the allowed methods', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/test/echo',
      headers: { origin: 'https://shoes.localhost', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-methods']).toContain('POST');
  });

  it('lets requests without an Origin through (server-to-server, webhooks)', async () => {
    const res = await app.inject({ method: 'POST', url: '/test/echo', payload: { name: 'ab', qty: 1 } });
    expect(res.statusCode).toBe(200);
  });
});

describe('OpenAPI document', () => {
  it('is served at /docs/json and describes the routes and the error shape', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/health', '/ready']));
    expect(doc.paths['/ready'].get.responses['503']).toBeDefined();
    const html = await app.inject({ method: 'GET', url: '/docs' });
    expect([200, 302]).toContain(html.statusCode);
  });
});

describe('request logging', () => {
  it('redacts secret-bearing query parameters from logged URLs', async () => {
    const { redactUrl } = await import('./app.js');
    expect(redactUrl('/api/auth/storefront-a/callback?code=abc&shop=s.myshopify.com&hmac=f00&state=n1')).toBe(
      '/api/auth/storefront-a/callback?code=%5Bredacted%5D&shop=s.myshopify.com&hmac=%5Bredacted%5D&state=%5Bredacted%5D',
    );
    expect(redactUrl('/api/auth/storefront-a/install?handoff=eyJ')).toBe('/api/auth/storefront-a/install?handoff=%5Bredacted%5D');
    expect(redactUrl('/health')).toBe('/health');
  });
});

describe('behind the TLS edge (PUBLIC_HTTPS)', () => {
  it('given https public origins / the dashboard origin answers with HSTS, a checkout host does not, and the session cookie is Secure', async () => {
    const edged = await buildApp({
      config: testConfig({ PUBLIC_HTTPS: 'true', APP_ORIGIN: 'https://app.checkout.example', SERVICE_DOMAIN: 'checkout.example', TRUST_PROXY: '127.0.0.1' }),
      db: database.db,
      temporal: { client: new Client({ connection }), connection },
      logger: false,
    });
    try {
      const dashboard = await edged.inject({ method: 'GET', url: '/health', headers: { host: 'app.checkout.example' } });
      expect(dashboard.headers['strict-transport-security']).toBe('max-age=31536000');
      const checkoutHost = await edged.inject({ method: 'GET', url: '/health', headers: { host: 'shop.checkout.example' } });
      expect(checkoutHost.headers['strict-transport-security']).toBeUndefined();
      const registered = await edged.inject({
        method: 'POST',
        url: '/api/auth/register',
        headers: { host: 'app.checkout.example', origin: 'https://app.checkout.example' },
        payload: { email: `hsts-${Date.now()}@shop.test`, password: 'correct horse battery 9', shopName: 'Secure Cookies', phone: '+49 30 1234567' },
      });
      expect(registered.statusCode, registered.body).toBe(201);
      const cookie = String(registered.headers['set-cookie'] ?? '');
      expect(cookie).toMatch(/;\s*Secure/i);
    } finally {
      await edged.close();
    }
  });

  it('given plain http (npm start) / no HSTS', async () => {
    const res = await app.inject({ method: 'GET', url: '/health', headers: { host: 'localhost:3000' } });
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });
});

// Every route the OpenAPI document declares as bearer-protected answers 401 UNAUTHORIZED without a token
// and with a token signed by another secret — whatever route a later change adds. The document is what
// the code registers (the same zod schemas), so a route that forgets `onRequest: app.authenticate` while
// declaring security, or the reverse, shows up here or in its own tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { startTestStack, type TestStack } from '../harness/stack.js';

let stack: TestStack;
let routes: Array<{ method: string; url: string }> = [];

beforeAll(async () => {
  // A foreign token on every route from one address is a flood of failed authentications: unlimited here, so each
  // route's own answer is seen (the per-address limit: api/plugins/failure-limits.test.ts).
  stack = await startTestStack({ RATE_LIMIT_AUTH_FAILURES: '100000000/60' });
  const doc = (await stack.app.inject({ method: 'GET', url: '/docs/json' })).json() as {
    paths: Record<string, Record<string, { security?: Array<Record<string, unknown>> }>>;
  };
  routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => op.security?.some((s) => 'bearerAuth' in s))
      .map(([method, ]) => ({ method: method.toUpperCase(), url: path.replace(/\{[^}]+\}/g, 'x') })),
  );
});
afterAll(async () => {
  await stack?.close();
});

function foreignToken(): string {
  const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ merchantId: '00000000-0000-0000-0000-000000000000', shopDomain: '', iat: Math.floor(Date.now() / 1000) })}`;
  return `${unsigned}.${createHmac('sha256', 'not-our-secret-not-our-secret-not-ours').update(unsigned).digest('base64url')}`;
}

describe('JWT routes', () => {
  it('are many (the document lists the merchant API)', () => {
    expect(routes.length).toBeGreaterThan(15);
  });

  it('each answer 401 UNAUTHORIZED without a token and with a foreign one, before reading the body', async () => {
    const failures: string[] = [];
    for (const route of routes) {
      for (const headers of [{}, { authorization: `Bearer ${foreignToken()}` }]) {
        const res = await stack.app.inject({ method: route.method as 'GET', url: route.url, headers, payload: route.method === 'GET' || route.method === 'DELETE' ? undefined : {} });
        if (res.statusCode !== 401 || res.json().code !== 'UNAUTHORIZED') failures.push(`${route.method} ${route.url} → ${res.statusCode} ${res.body.slice(0, 80)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

// Test helpers for the storefront A routes: the whole test stack (its API listens on a real port, so the
// storefront A simulator can post webhooks to it) and the steps of an install through OAuth.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { startTestStack, type TestStack } from './stack.js';
import { createTestMerchant } from './merchants.js';
import { createSecretBox } from '../../security/secrets.js';
import { storefrontAAad } from '../../model/connections.js';
import { DEMO_APP, DEMO_SHOP } from '../../sandbox/storefront-a/simulator.js';

export { DEMO_APP, DEMO_SHOP };
type Json = Record<string, unknown>;

export interface StorefrontAStack {
  stack: TestStack;
  app: FastifyInstance;
  /** http://127.0.0.1:<port> of `app`. */
  url: string;
  secrets: ReturnType<typeof createSecretBox>;
  close(): Promise<void>;
}

export async function startStorefrontAStack(): Promise<StorefrontAStack> {
  return storefrontAStackOf(await startTestStack());
}

/**
 * The lifecycle every storefront A test file shares: one stack for the file, and before each test a fresh
 * simulator and no storefront A connections (plus whatever `reset` adds). The returned object is filled in
 * by beforeAll, so tests use it directly.
 */
export function useStorefrontAStack(reset?: (s: StorefrontAStack) => Promise<unknown>): StorefrontAStack {
  const holder = {} as StorefrontAStack;
  beforeAll(async () => {
    Object.assign(holder, await startStorefrontAStack());
  });
  afterAll(async () => {
    await holder.close?.();
  });
  beforeEach(async () => {
    await holder.stack.sims.storefrontA.reset();
    await holder.stack.database.db.storefrontAConnection.deleteMany();
    await reset?.(holder);
  });
  return holder;
}

/** The storefront A helpers' view of a test stack started elsewhere. */
export function storefrontAStackOf(stack: TestStack): StorefrontAStack {
  return { stack, app: stack.app, url: stack.apiUrl, secrets: createSecretBox(stack.config.secretsKey!), close: () => stack.close() };
}

/** A merchant row and a session token for it, on a paid plan unless `plan: 'demo'` (test/harness/merchants.ts). */
export const createMerchant = (s: StorefrontAStack, name = 'Shop', opts: { plan?: 'demo' | string } = {}) => createTestMerchant(s.stack.database.db, s.app, name, opts);

export async function call(s: StorefrontAStack, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, opts: { token?: string; body?: unknown } = {}) {
  const res = await s.app.inject({ method, url, payload: opts.body as Json | undefined, headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {} });
  let body: Json & { code?: string; error?: string } = {};
  try {
    body = res.json();
  } catch {
    body = {};
  }
  return { status: res.statusCode, body, headers: res.headers };
}

/** PUT the install inputs; answers the installUrl. */
export async function saveInputs(s: StorefrontAStack, token: string, inputs: { shop?: string; clientId?: string; clientSecret?: string } = {}): Promise<string> {
  const res = await call(s, 'PUT', '/api/merchant/storefront-a', {
    token,
    body: { shop: DEMO_SHOP, clientId: DEMO_APP.clientId, clientSecret: DEMO_APP.clientSecret, ...inputs },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return String(res.body.installUrl);
}

/** Opens our install URL: answers the authorize URL we redirect to (at the simulator). */
export async function openInstall(s: StorefrontAStack, installUrl: string): Promise<URL> {
  const u = new URL(installUrl);
  const res = await s.app.inject({ method: 'GET', url: u.pathname + u.search });
  expect(res.statusCode, res.body).toBe(302);
  return new URL(String(res.headers.location));
}

/** The merchant presses Install on the consent page: answers the callback URL the platform sends the browser to. */
export async function consent(authorizeUrl: URL): Promise<URL> {
  const page = await fetch(authorizeUrl);
  expect(page.status).toBe(200);
  const html = await page.text();
  const fields = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&#38;/g, '&').replace(/&amp;/g, '&')]));
  const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!;
  const res = await fetch(authorizeUrl.origin + action, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, decision: 'install' }).toString(),
  });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

/** The browser follows the platform's redirect to our callback. */
export async function openCallback(s: StorefrontAStack, callback: URL) {
  const res = await s.app.inject({ method: 'GET', url: callback.pathname + callback.search });
  let body: Json & { code?: string } = {};
  try {
    body = res.json();
  } catch {
    body = {};
  }
  return { status: res.statusCode, location: res.headers.location as string | undefined, body };
}

/** The whole install, as a merchant does it: inputs, install link, consent, callback. */
export async function installThroughOAuth(s: StorefrontAStack, token: string): Promise<void> {
  const callback = await consent(await openInstall(s, await saveInputs(s, token)));
  const res = await openCallback(s, callback);
  // Every answer is a redirect: success goes to the dashboard, a failure to the connection-problem page.
  expect(res.location).toBe(`${s.stack.config.appOrigin}/dashboard?storefrontA=connected`);
}

/** The access token stored for a merchant, opened. */
export async function storedAccessToken(s: StorefrontAStack, merchantId: string): Promise<string | null> {
  const row = await s.stack.database.db.storefrontAConnection.findUnique({ where: { merchantId } });
  return row?.accessTokenEnc ? s.secrets.decrypt(row.accessTokenEnc, storefrontAAad.accessToken(merchantId)) : null;
}

export async function simShop(s: StorefrontAStack, shop = DEMO_SHOP) {
  const res = await fetch(`${s.stack.urls.storefrontA}/_control/shops/${shop}`);
  return (await res.json()) as { scriptTags: Array<{ id: number; src: string; clientId: string }>; installs: Array<{ clientId: string }> };
}

export async function simControl(s: StorefrontAStack, path: string, body: unknown) {
  const res = await fetch(`${s.stack.urls.storefrontA}/_control/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Json };
}

export async function workflowExists(s: StorefrontAStack, workflowId: string): Promise<boolean> {
  try {
    await s.stack.temporal.client.workflow.getHandle(workflowId).describe();
    return true;
  } catch {
    return false;
  }
}

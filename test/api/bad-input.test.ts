// Bad input never answers 5xx and never changes state. Text no column can store (U+0000, an unpaired UTF-16
// surrogate) is refused with 400 INVALID_INPUT naming the field — in the fields an issue reported, and, by a
// sweep over the OpenAPI document, in every string field, query parameter and path parameter of every
// operation (so a route added later is covered without anyone remembering to). Credentials must be
// printable ASCII. The signed webhooks keep every delivery, bad text included, and answer per their contract.
// What Fastify and Node answer by themselves (over-long path parameter, undecodable URL, malformed HTTP)
// is `{ error, code }` with a code from the catalogue too.
import { randomBytes, randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { createTestMerchant, type TestMerchant } from '../harness/merchants.js';
import { isErrorCode, statusOf } from '../../domain/errors.js';
import { createSecretBox } from '../../security/secrets.js';
import { processorAad } from '../../model/connections.js';
import { storefrontAAad } from '../../model/connections.js';
import { signSpecWebhook as signWebhook, SPEC_SIGNATURE_HEADER as SIGNATURE_HEADER } from '../../integrations/processor/webhook.js';
import { WEBHOOK_HEADERS } from '../../integrations/storefront-a/webhooks.js';
import { signWebhook as signWebhookBody } from '../../sandbox/storefront-a/webhooks.js';

const NUL = 'a\u0000b';
const LONE = 'a\ud83db';
const BILLING_SECRET = `whsec_${randomBytes(12).toString('hex')}`;

let stack: TestStack;
let merchant: TestMerchant;
let apiUrl: string;

beforeAll(async () => {
  stack = await startTestStack({
    PLATFORM_PROCESSOR_WEBHOOK_SECRET: BILLING_SECRET,
    // The sweep calls every operation many times: no rate limit may answer before validation does.
    RATE_LIMIT_LOGIN: '100000/60',
    RATE_LIMIT_REGISTER: '100000/60',
    RATE_LIMIT_PASSWORD_RESET: '100000/60',
    RATE_LIMIT_CHECKOUT_CREATE: '100000/60',
    RATE_LIMIT_INIT_PAYMENT: '100000/60',
    RATE_LIMIT_DISCOUNT: '100000/60',
    RATE_LIMIT_CHECKOUT_PROGRESS: '100000/60',
  });
  merchant = await createTestMerchant(stack.database.db, stack.app);
  apiUrl = stack.apiUrl;
});
afterAll(async () => {
  await stack?.close();
});

const db = () => stack.database.db;
const box = () => createSecretBox(stack.config.secretsKey!);
type Json = Record<string, unknown>;

/** Sends the body as JSON text exactly as given (JSON.stringify writes a lone surrogate as the escape \ud83d). */
let sent = 0;
async function send(method: string, url: string, body?: unknown, opts: { token?: string; headers?: Record<string, string> } = {}) {
  // Each request from its own address: the sweeps send hundreds, and the per-IP rate limits are not what they test.
  sent++;
  const res = await stack.app.inject({
    method: method as 'POST',
    url,
    remoteAddress: `198.18.${Math.floor(sent / 250) % 250}.${(sent % 250) + 1}`,
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers },
  });
  let json: Json = {};
  try {
    json = res.json() as Json;
  } catch {
    // asserted on below
  }
  return { status: res.statusCode, body: json, text: res.body };
}

const fieldsOf = (body: Json) => ((body.details as { fields?: Record<string, string> } | undefined)?.fields ?? {});

function expectRefused(res: { status: number; body: Json }, field: string, problem: RegExp) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.code).toBe('INVALID_INPUT');
  expect(fieldsOf(res.body)[field], JSON.stringify(res.body)).toMatch(problem);
}

describe('text that cannot be stored, in the fields it was reported in', () => {
  const cases: Array<{ name: string; method: string; url: string; body: (bad: string) => Json; field: string; auth: boolean }> = [
    { name: 'login email (no login needed)', method: 'POST', url: '/api/auth/login', body: (bad) => ({ email: `${bad}@shop.test`, password: 'whatever-password' }), field: 'body.email', auth: false },
    { name: 'shopName', method: 'PATCH', url: '/api/merchant/shop', body: (bad) => ({ shopName: bad }), field: 'body.shopName', auth: true },
    { name: 'shipping rate name', method: 'PATCH', url: '/api/merchant/config', body: (bad) => ({ shippingRates: [{ name: bad, basePriceCents: 490 }] }), field: 'body.shippingRates.0.name', auth: true },
    { name: 'checkoutTexts.headline', method: 'PATCH', url: '/api/merchant/config', body: (bad) => ({ checkoutTexts: { headline: bad } }), field: 'body.checkoutTexts.headline', auth: true },
    { name: 'storefront A clientId', method: 'PUT', url: '/api/merchant/storefront-a', body: (bad) => ({ shop: 'bad-input.myshopify.com', clientId: bad, clientSecret: 'shpss_secret' }), field: 'body.clientId', auth: true },
    { name: 'processor apiKey', method: 'POST', url: '/api/merchant/processor/connect', body: (bad) => ({ apiKey: `sk_${bad}` }), field: 'body.apiKey', auth: true },
  ];

  for (const c of cases) {
    it(`given ${c.name} with U+0000 or a lone surrogate / it answers 400 INVALID_INPUT naming ${c.field} and changes nothing`, async () => {
      const before = await db().merchant.findUniqueOrThrow({ where: { id: merchant.id }, include: { shippingRates: true, storefrontA: true, processorConnection: true } });
      for (const [bad, problem] of [[NUL, /U\+0000/], [LONE, /surrogate/]] as const) {
        const res = await send(c.method, c.url, c.body(bad), { token: c.auth ? merchant.token : undefined });
        expectRefused(res, c.field, problem);
      }
      const after = await db().merchant.findUniqueOrThrow({ where: { id: merchant.id }, include: { shippingRates: true, storefrontA: true, processorConnection: true } });
      expect(after).toEqual(before);
    });
  }

  it('given a property name with U+0000 / it is refused too (a key is stored like a value in jsonb)', async () => {
    const res = await send('PATCH', '/api/merchant/config', { checkoutTexts: { [`head${NUL}`]: 'x' } }, { token: merchant.token });
    expectRefused(res, 'body.checkoutTexts', /property names must not contain U\+0000/);
  });

  it('given U+0000 in a query parameter or a path parameter / it names that parameter', async () => {
    expectRefused(await send('GET', `/api/checkout/merchant/orders?q=${encodeURIComponent(NUL)}`, undefined, { token: merchant.token }), 'querystring.q', /U\+0000/);
    expectRefused(await send('GET', `/api/checkout/session/${encodeURIComponent(NUL)}`), 'params.token', /U\+0000/);
  });

  it('given text that is fine (tabs, emoji, right-to-left marks) / it is stored as sent', async () => {
    const headline = 'Tab\there 😀 \u202Eok\u200B';
    const res = await send('PATCH', '/api/merchant/config', { checkoutTexts: { headline } }, { token: merchant.token });
    expect(res.status, res.text).toBe(200);
    expect((res.body.checkoutTexts as Json).headline).toBe(headline);
  });
});

describe('credentials', () => {
  const pastes = { emoji: 'sk_live_1234😀', rtl: 'sk_live_\u202E1234', zeroWidth: 'sk_live_12\u200B34', space: 'sk_live 1234' };

  it('given an API key, consumer key/secret or app client id/secret with emoji, U+202E, a zero-width or plain space / 400 INVALID_INPUT naming it, nothing stored, no processor call', async () => {
    const m = await createTestMerchant(db(), stack.app);
    for (const [what, key] of Object.entries(pastes)) {
      expectRefused(await send('POST', '/api/merchant/processor/connect', { apiKey: key }, { token: m.token }), 'body.apiKey', /printable ASCII/);
      const b = { storeUrl: 'https://shop.example', consumerKey: 'ck_ok', consumerSecret: 'cs_ok' };
      expectRefused(await send('POST', '/api/merchant/storefront-b/connect', { ...b, consumerKey: key }, { token: m.token }), 'body.consumerKey', /printable ASCII/);
      expectRefused(await send('POST', '/api/merchant/storefront-b/connect', { ...b, consumerSecret: key }, { token: m.token }), 'body.consumerSecret', /printable ASCII/);
      const a = { shop: 'paste.myshopify.com', clientId: 'client_ok', clientSecret: 'secret_ok' };
      expectRefused(await send('PUT', '/api/merchant/storefront-a', { ...a, clientId: key }, { token: m.token }), 'body.clientId', /printable ASCII/);
      expectRefused(await send('PUT', '/api/merchant/storefront-a', { ...a, clientSecret: key }, { token: m.token }), 'body.clientSecret', /printable ASCII/);
      expect(what).toBeTruthy();
    }
    const row = await db().merchant.findUniqueOrThrow({ where: { id: m.id }, include: { storefrontA: true, storefrontB: true, processorConnection: true } });
    expect(row).toMatchObject({ storefrontA: null, storefrontB: null, processorConnection: null, storePlatform: null });
  });

  it('given a key with whitespace around it (a paste) / it is trimmed, not refused', async () => {
    const m = await createTestMerchant(db(), stack.app);
    const res = await send('POST', '/api/merchant/processor/connect', { apiKey: '  sk_not_a_real_key_9876\n' }, { token: m.token });
    expect(res.body.code).toBe('INVALID_PROCESSOR_KEY');
  });
});

describe('signed webhooks with text that cannot be stored', () => {
  it('given a processor payment webhook body with a raw NUL byte / 400 INVALID_INPUT (not JSON), stored with U+FFFD in its place', async () => {
    const raw = '{"id":"evt_raw_nul","event":"payment_succeeded","x":"\u0000"}';
    const res = await stack.app.inject({ method: 'POST', url: '/webhooks/processor/payment-update', payload: raw, headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: '00' } });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'INVALID_INPUT' });
    const row = await db().processorWebhookDelivery.findFirstOrThrow({ where: { rawBody: { contains: 'evt_raw_nul' } } });
    expect(row).toMatchObject({ rawBody: raw.replace('\u0000', '\uFFFD'), signatureValid: false, rejection: 'malformed' });
  });

  it('given a processor payment webhook whose fields hold U+0000 and lone surrogates (JSON escapes), unsigned / 401 as any unverifiable delivery, stored', async () => {
    const raw = '{"id":"evt_nul","event":"payment\\u0000succeeded\\ud83d","data":{"id":"pay_1","metadata":{"checkout_session_token":"cs_\\u0000"}}}';
    const res = await stack.app.inject({ method: 'POST', url: '/webhooks/processor/payment-update', payload: raw, headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: '00' } });
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json()).toMatchObject({ code: 'INVALID_SIGNATURE' });
    const row = await db().processorWebhookDelivery.findFirstOrThrow({ where: { rawBody: raw } });
    expect(row).toMatchObject({ event: 'payment\uFFFDsucceeded\uFFFD', sessionToken: 'cs_\uFFFD', signatureValid: false, rejection: 'unknown_session' });
  });

  it('given a correctly signed processor payment event whose fields hold U+0000 / 400 INVALID_INPUT (not an event we can record), stored as malformed, nothing signalled', async () => {
    const m = await createTestMerchant(db(), stack.app);
    const secret = `whsec_${randomBytes(8).toString('hex')}`;
    await db().processorConnection.create({
      data: {
        merchantId: m.id, apiKeyEnc: box().encrypt('sk_x', processorAad.apiKey(m.id)), apiKeyLast4: 'sk_x', businessId: 'biz', productId: 'prod', webhookId: 'wh',
        webhookSecretEnc: box().encrypt(secret, processorAad.webhookSecret(m.id)), status: 'CONNECTED', connectedAt: new Date(),
      },
    });
    const token = `cs_${randomBytes(24).toString('base64url')}`;
    await db().checkoutSession.create({ data: { token, merchantId: m.id, platform: 'STOREFRONT_A', currency: 'EUR', fxRates: { date: '2026-01-02', rates: {} }, items: [], subtotalMinor: 100 } });
    for (const raw of [
      JSON.stringify({ id: `evt_${NUL}`, event: 'payment_succeeded', data: { id: 'pay_1', metadata: { checkout_session_token: token } } }),
      JSON.stringify({ id: 'evt_lone', event: `payment_succeeded${LONE}`, data: { id: 'pay_1', metadata: { checkout_session_token: token } } }),
    ]) {
      const res = await stack.app.inject({ method: 'POST', url: '/webhooks/processor/payment-update', payload: raw, headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signWebhook(secret, raw) } });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ code: 'INVALID_INPUT' });
    }
    const rows = await db().processorWebhookDelivery.findMany({ where: { sessionToken: token } });
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.signatureValid && r.rejection === 'malformed' && r.signalledAt === null && r.eventId === null)).toBe(true);
    expect(await db().sessionEvent.count({ where: { token, type: 'webhook_received' } })).toBe(0);
    expect((await db().checkoutSession.findUniqueOrThrow({ where: { token } })).status).toBe('OPEN');
  });

  it('given a signed platform billing event holding U+0000 / 400 INVALID_INPUT, stored as malformed', async () => {
    const raw = JSON.stringify({ id: 'evt_billing_nul', event: `invoice_paid${NUL}`, data: { id: 'pay_2', metadata: { platform_billing_merchant_id: merchant.id } } });
    const res = await stack.app.inject({ method: 'POST', url: '/webhooks/processor/platform-billing', payload: raw, headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signWebhook(BILLING_SECRET, raw) } });
    expect(res.statusCode, res.body).toBe(400);
    const row = await db().platformBillingWebhookDelivery.findFirstOrThrow({ where: { event: 'invoice_paida\uFFFDb' }, orderBy: { receivedAt: 'desc' } });
    expect(row).toMatchObject({ signatureValid: true, rejection: 'malformed' });
  });

  it('given storefront A webhooks holding U+0000 or a lone surrogate, signed or not / 401 or 400 per the contract, each stored with U+FFFD in its place', async () => {
    const m = await createTestMerchant(db(), stack.app);
    const shop = `nul-${randomBytes(4).toString('hex')}.myshopify.com`;
    const secret = 'shpss_bad_input_secret';
    await db().storefrontAConnection.create({ data: { merchantId: m.id, shop, clientId: 'cid', clientSecretEnc: box().encrypt(secret, storefrontAAad.clientSecret(m.id)) } });
    const raw = JSON.stringify({ shop_id: 1, shop_domain: shop, note: NUL, other: LONE });
    const headers = { 'content-type': 'application/json', [WEBHOOK_HEADERS.topic]: 'shop/redact', [WEBHOOK_HEADERS.shopDomain]: shop, [WEBHOOK_HEADERS.apiVersion]: '2026-10', [WEBHOOK_HEADERS.webhookId]: randomUUID() };

    const forged = await stack.app.inject({ method: 'POST', url: '/webhooks/storefront-a', payload: raw, headers: { ...headers, [WEBHOOK_HEADERS.hmac]: signWebhookBody(raw, 'not-the-secret') } });
    expect(forged.statusCode, forged.body).toBe(401);
    const signed = await stack.app.inject({ method: 'POST', url: '/webhooks/storefront-a', payload: raw, headers: { ...headers, [WEBHOOK_HEADERS.hmac]: signWebhookBody(raw, secret), [WEBHOOK_HEADERS.webhookId]: randomUUID() } });
    expect(signed.statusCode, signed.body).toBe(400);
    expect(signed.json()).toMatchObject({ code: 'INVALID_INPUT', error: expect.stringContaining('U+0000') });

    const rows = await db().storefrontAWebhook.findMany({ where: { shop }, orderBy: { receivedAt: 'asc' } });
    expect(rows.map((r) => r.hmacValid)).toEqual([false, true]);
    expect(rows[0]!.payload).toMatchObject({ unverified: true, body: raw });
    expect(rows[1]!.payload).toMatchObject({ note: 'a\uFFFDb', other: 'a\uFFFDb' });
    expect(rows[1]!.processedAt).not.toBeNull();
    // Nothing was applied: the shop/redact would have removed the connection.
    expect(await db().storefrontAConnection.count({ where: { shop } })).toBe(1);
  });
});

describe('answers Fastify and Node give by themselves', () => {
  it('given a path parameter over the router\'s limit / 414 URI_TOO_LONG as { error, code }', async () => {
    const res = await send('POST', `/api/checkout/cs_${'a'.repeat(300)}/pay`);
    expect(res.status).toBe(414);
    expect(res.body).toEqual({ error: expect.any(String), code: 'URI_TOO_LONG' });
    expect(statusOf('URI_TOO_LONG')).toBe(414);
  });

  it('given a path that does not percent-decode to UTF-8 (incl. an encoded lone surrogate) / 400 INVALID_INPUT as { error, code }', async () => {
    for (const url of ['/api/checkout/session/%E0%A4%A', '/api/checkout/session/%ED%A0%BD', '/api/merchant/config/%FF']) {
      const res = await send('GET', url);
      expect(res.status, url).toBe(400);
      expect(res.body, url).toEqual({ error: expect.any(String), code: 'INVALID_INPUT' });
    }
  });

  it('given a query string that does not percent-decode to UTF-8 / never a 5xx, always { error, code }', async () => {
    const res = await send('GET', '/api/checkout/merchant/orders?q=%ED%A0%BD', undefined, { token: merchant.token });
    expect(res.status).toBeLessThan(500);
    if (res.status !== 200) expect(isErrorCode(res.body.code)).toBe(true);
  });

  /** Raw bytes over a socket: what Node's HTTP parser refuses never reaches a route. */
  function rawRequest(bytes: string): Promise<string> {
    const { hostname, port } = new URL(apiUrl);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) }, () => socket.end(bytes));
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
  }

  it('given malformed HTTP or headers over Node\'s limit / 400 INVALID_INPUT and 431 HEADERS_TOO_LARGE as { error, code }', async () => {
    const malformed = await rawRequest('GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(malformed.slice(malformed.indexOf('\r\n\r\n') + 4))).toEqual({ error: expect.any(String), code: 'INVALID_INPUT' });
    const huge = await rawRequest(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(huge.slice(huge.indexOf('\r\n\r\n') + 4))).toEqual({ error: expect.any(String), code: 'HEADERS_TOO_LARGE' });
    expect(statusOf('HEADERS_TOO_LARGE')).toBe(431);
  });
});

// ---------------------------------------------------------------------------------------------------
// The sweep: every operation of the OpenAPI document, every string it accepts.

type Schema = { $ref?: string; type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[]; additionalProperties?: Schema | boolean };
type Operation = { parameters?: Array<{ in: string; name: string; schema?: Schema }>; requestBody?: { content?: Record<string, { schema?: Schema }> }; security?: Array<Record<string, unknown>> };
type Doc = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

interface Target {
  method: string;
  path: string;
  where: 'body' | 'querystring' | 'params';
  field: Array<string | number>;
  auth: boolean;
}

/** The paths (from the root of a JSON schema) at which it accepts a string. */
function stringPaths(doc: Doc, schema: Schema | undefined, path: Array<string | number> = [], seen = new Set<string>()): Array<Array<string | number>> {
  if (!schema) return [];
  if (schema.$ref) {
    if (seen.has(schema.$ref)) return [];
    const name = schema.$ref.replace('#/components/schemas/', '');
    return stringPaths(doc, doc.components?.schemas?.[name], path, new Set([...seen, schema.$ref]));
  }
  const found: Array<Array<string | number>> = [];
  for (const variant of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) found.push(...stringPaths(doc, variant, path, seen));
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes('string')) found.push(path);
  for (const [key, sub] of Object.entries(schema.properties ?? {})) found.push(...stringPaths(doc, sub, [...path, key], seen));
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') found.push(...stringPaths(doc, schema.additionalProperties, [...path, 'extra'], seen));
  if (schema.items) found.push(...stringPaths(doc, schema.items, [...path, 0], seen));
  const unique = new Map(found.map((p) => [JSON.stringify(p), p]));
  return [...unique.values()];
}

function targetsOf(doc: Doc): Target[] {
  const targets: Target[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const auth = !!op.security?.some((s) => 'bearerAuth' in s);
      const base = { method: method.toUpperCase(), path, auth };
      for (const p of op.parameters ?? []) {
        if ((p.in === 'path' || p.in === 'query') && stringPaths(doc, p.schema).some((sp) => sp.length === 0)) {
          targets.push({ ...base, where: p.in === 'path' ? 'params' : 'querystring', field: [p.name] });
        }
      }
      const body = op.requestBody?.content?.['application/json']?.schema;
      for (const field of stringPaths(doc, body)) if (field.length > 0) targets.push({ ...base, where: 'body', field });
    }
  }
  return targets;
}

/** A value of the right shape for a path parameter (so the params part validates), unless it is the field under test. */
function placeholder(name: string): string {
  if (name === 'id') return randomUUID();
  if (name === 'token') return `cs_${'a'.repeat(32)}`;
  return 'x';
}

/** `{}` with `value` at `field` (arrays where the path has an index). */
function bodyWith(field: Array<string | number>, value: string): unknown {
  let out: unknown = value;
  for (let i = field.length - 1; i >= 0; i--) {
    const key = field[i]!;
    out = typeof key === 'number' ? [out] : { [key]: out };
  }
  return out;
}

describe('the sweep over the OpenAPI document', () => {
  let targets: Target[] = [];

  beforeAll(async () => {
    targets = targetsOf((await stack.app.inject({ method: 'GET', url: '/docs/json' })).json() as Doc);
  });

  it('finds the API\'s strings (bodies, queries, params of every group)', () => {
    expect(targets.length).toBeGreaterThan(120);
    for (const where of ['body', 'querystring', 'params'] as const) expect(targets.some((t) => t.where === where)).toBe(true);
  });

  it('every string of every operation, given U+0000, answers 400 INVALID_INPUT naming it (never 5xx, never another answer)', async () => {
    const failures: string[] = [];
    for (const t of targets) {
      const key = [t.where, ...t.field].join('.');
      let url = t.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(t.where === 'params' && t.field[0] === name ? NUL : placeholder(name)));
      if (t.where === 'querystring') url += `?${encodeURIComponent(String(t.field[0]))}=${encodeURIComponent(NUL)}`;
      const body = t.where === 'body' ? bodyWith(t.field, NUL) : t.method === 'GET' || t.method === 'DELETE' ? undefined : {};
      const res = await send(t.method, url, body, { token: t.auth ? merchant.token : undefined });
      if (res.status !== 400 || res.body.code !== 'INVALID_INPUT' || !/U\+0000/.test(fieldsOf(res.body)[key] ?? '')) {
        failures.push(`${t.method} ${t.path} ${key} → ${res.status} ${res.text.slice(0, 160)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('every string of every request body, given a lone surrogate (JSON escape), answers 400 INVALID_INPUT naming it', async () => {
    const failures: string[] = [];
    for (const t of targets.filter((x) => x.where === 'body')) {
      const key = ['body', ...t.field].join('.');
      const url = t.path.replace(/\{([^}]+)\}/g, (_, name: string) => placeholder(name));
      const res = await send(t.method, url, bodyWith(t.field, LONE), { token: t.auth ? merchant.token : undefined });
      if (res.status !== 400 || res.body.code !== 'INVALID_INPUT' || !/surrogate/.test(fieldsOf(res.body)[key] ?? '')) {
        failures.push(`${t.method} ${t.path} ${key} → ${res.status} ${res.text.slice(0, 160)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

// The mixed-merchant concurrency probe, on the database `npm start` runs (scripts/lib/embedded-postgres.ts,
// durable settings, a data directory of its own) and the API listening on a real port: 600 requests from 24
// concurrent clients for three merchants — profile writes and reads, configuration writes, discount lists and
// signed processor webhooks. Every answer must belong to the merchant who asked, every write must land on the
// caller's own row, nothing may answer 5xx and no valid token or signature may be refused.
//
// It failed on the single-session PGlite we served before (answers with another merchant's profile, a shop
// name written onto another merchant's row, 500s from interleaved prepared statements, spurious 401s).
import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { migrate } from '../../prisma/migrate.js';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from '../../scripts/lib/embedded-postgres.js';
import { freePort } from '../../scripts/lib/ports.js';
import { startServiceStack, type ServiceStack } from '../../scripts/lib/stack/service-stack.js';
import { testWorkflowBundle } from '../harness/temporal.js';
import { givePaidPlan } from '../../scripts/lib/stack/billing.js';
import { processorAad } from '../../model/connections.js';
import { createSecretBox } from '../../security/secrets.js';
import { WORKFLOWS } from '../../domain/temporal/workflow-names.js';

const REQUESTS = 600;
const CLIENTS = 24;

interface Probe {
  tag: string;
  id: string;
  email: string;
  token: string;
  discountCodes: string[];
  sessionToken: string;
  webhookSecret: string;
}

let dataDir: string;
let server: EmbeddedPostgresServer;
let stack: ServiceStack;
const merchants: Probe[] = [];

async function call(method: string, url: string, opts: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {}) {
  const res = await fetch(`${stack.apiUrl}${url}`, {
    method,
    headers: {
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.body !== undefined || opts.raw !== undefined ? { 'content-type': 'application/json' } : {}),
      ...opts.headers,
    },
    body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // kept empty: the status says what happened
  }
  return { status: res.status, json };
}

async function setUpMerchant(tag: string): Promise<Probe> {
  const email = `${tag}-${randomBytes(3).toString('hex')}@tenant.test`;
  const reg = await call('POST', '/api/auth/register', { body: { email, password: 'correct horse battery 9', shopName: `Shop ${tag}`, phone: '+49 30 1234567' } });
  expect(reg.status, JSON.stringify(reg.json)).toBe(201);
  const token = reg.json.token as string;
  const id = (reg.json.merchant as { id: string }).id;
  await givePaidPlan(stack.db, id);
  const discountCodes: string[] = [];
  for (let i = 0; i < 3; i++) {
    const code = `${tag.toUpperCase()}${i}OFF`;
    const res = await call('POST', '/api/merchant/discounts', { token, body: { code, type: 'percentage', percentOff: 10 } });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    discountCodes.push(code);
  }
  // A connected processor (sealed as the connection activities seal it) and an open session, so the probe can
  // send this merchant's signed webhooks. No worker runs here: the connection is written, not made.
  const box = createSecretBox(stack.config.secretsKey!);
  const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  await stack.db.processorConnection.create({
    data: {
      merchantId: id,
      apiKeyEnc: box.encrypt('sk_probe_key', processorAad.apiKey(id)),
      apiKeyLast4: '_key',
      businessId: `biz_${tag}`,
      productId: `prod_${tag}`,
      webhookId: `hook_${tag}`,
      webhookSecretEnc: box.encrypt(webhookSecret, processorAad.webhookSecret(id)),
      status: 'CONNECTED',
      connectedAt: new Date(),
    },
  });
  const sessionToken = `cs_${randomBytes(24).toString('base64url')}`;
  await stack.db.checkoutSession.create({
    data: { token: sessionToken, merchantId: id, platform: 'STOREFRONT_B', currency: 'EUR', fxRates: { date: '2026-01-02', rates: {} }, items: [], subtotalMinor: 1000 },
  });
  return { tag, id, email, token, discountCodes, sessionToken, webhookSecret };
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'tenant-probe-'));
  chmodSync(dataDir, 0o711); // as root the server runs as `postgres`, which must be able to enter it
  // As `npm start` runs it: a data directory that persists, durable settings.
  server = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: await freePort() });
  const databaseUrl = server.url();
  await migrate(databaseUrl);
  stack = await startServiceStack({
    databaseUrl,
    temporalAddress: inject('temporalAddress'),
    workflowBundle: testWorkflowBundle,
    // The webhooks start checkout workflows that nobody needs to run here.
    worker: false,
    env: { RATE_LIMIT_REGISTER: '1000/60' },
  });
  for (const tag of ['alpha', 'bravo', 'charlie']) merchants.push(await setUpMerchant(tag));
}, 180_000);

afterAll(async () => {
  for (const m of merchants) {
    await stack?.temporal.client.workflow.getHandle(WORKFLOWS.checkout.id(m.sessionToken)).terminate('probe over').catch(() => undefined);
  }
  await stack?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

type Outcome = { merchant: Probe; op: string; status: number; problem?: string };

/** One request of the probe and what was wrong with its answer, if anything. */
async function probeOnce(m: Probe, n: number, sentNames: Map<string, Set<string>>): Promise<Outcome> {
  const op = ['shop', 'config', 'me', 'discounts', 'webhook'][n % 5]!;
  switch (op) {
    case 'shop': {
      const shopName = `Shop ${m.tag} ${n}`;
      sentNames.get(m.id)!.add(shopName);
      const res = await call('PATCH', '/api/merchant/shop', { token: m.token, body: { shopName } });
      const problem = res.status === 200 && res.json.id !== m.id ? `answered merchant ${String(res.json.id)}` : undefined;
      return { merchant: m, op, status: res.status, problem };
    }
    case 'config': {
      const res = await call('PATCH', '/api/merchant/config', { token: m.token, body: { checkoutTexts: { headline: `Checkout of ${m.tag} ${n}` } } });
      const problem = res.status === 200 && res.json.id !== m.id ? `answered merchant ${String(res.json.id)}` : undefined;
      return { merchant: m, op, status: res.status, problem };
    }
    case 'me': {
      const res = await call('GET', '/api/merchant/me', { token: m.token });
      const problem = res.status === 200 && (res.json.id !== m.id || res.json.email !== m.email) ? `answered ${String(res.json.id)} <${String(res.json.email)}>` : undefined;
      return { merchant: m, op, status: res.status, problem };
    }
    case 'discounts': {
      const res = await call('GET', '/api/merchant/discounts', { token: m.token });
      const codes = Array.isArray(res.json.items) ? (res.json.items as Array<{ code: string }>).map((d) => d.code) : Array.isArray(res.json) ? [] : [];
      const problem = res.status === 200 && [...codes].sort().join() !== [...m.discountCodes].sort().join() ? `listed ${codes.join(',')}` : undefined;
      return { merchant: m, op, status: res.status, problem };
    }
    default: {
      const raw = JSON.stringify({
        id: `evt_${randomBytes(8).toString('hex')}`,
        event: 'payment_failed',
        data: { id: `pay_${m.tag}_${n}`, metadata: { checkout_session_token: m.sessionToken } },
      });
      const signature = createHmac('sha256', m.webhookSecret).update(raw).digest('hex');
      const res = await call('POST', '/webhooks/processor/payment-update', { raw, headers: { 'x-processor-signature': signature } });
      return { merchant: m, op, status: res.status };
    }
  }
}

describe('several merchants at once on the embedded database', () => {
  it(`given three merchants / when ${REQUESTS} mixed requests run from ${CLIENTS} clients at once / every answer and every write stays with its merchant`, async () => {
    const sentNames = new Map(merchants.map((m) => [m.id, new Set<string>()]));
    const outcomes: Outcome[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < REQUESTS) {
          const n = next++;
          outcomes.push(await probeOnce(merchants[Math.floor(n / 5) % merchants.length]!, n, sentNames));
        }
      }),
    );

    const count = (f: (o: Outcome) => boolean) => outcomes.filter(f).length;
    const summary = {
      requests: outcomes.length,
      crossTenant: outcomes.filter((o) => o.problem).map((o) => `${o.merchant.tag} ${o.op}: ${o.problem}`),
      serverErrors: count((o) => o.status >= 500),
      refused401: count((o) => o.status === 401),
      otherNon2xx: outcomes.filter((o) => o.status >= 300 && o.status !== 401 && o.status < 500).map((o) => `${o.op} ${o.status}`),
    };
    expect(summary).toEqual({ requests: REQUESTS, crossTenant: [], serverErrors: 0, refused401: 0, otherNon2xx: [] });

    // Every write landed on the caller's own row: each shop name is one its own merchant sent.
    for (const m of merchants) {
      const row = await stack.db.merchant.findUniqueOrThrow({ where: { id: m.id }, select: { shopName: true, checkoutTexts: true } });
      expect(sentNames.get(m.id)!.has(row.shopName), `${m.tag}'s shop name is "${row.shopName}"`).toBe(true);
      expect(String((row.checkoutTexts as Record<string, string>).headline)).toMatch(new RegExp(`^Checkout of ${m.tag} \\d+$`));
      // Every webhook was stored as valid, for this merchant's session.
      const invalid = await stack.db.processorWebhookDelivery.count({ where: { sessionToken: m.sessionToken, signatureValid: false } });
      expect(invalid, `${m.tag}: webhooks stored as invalid`).toBe(0);
    }
  }, 180_000);
});

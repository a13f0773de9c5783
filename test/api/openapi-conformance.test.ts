// The OpenAPI document tells the truth: Schemathesis (scripts/lib/schemathesis.ts, pinned, cached) fuzzes the
// API it describes, with every check it has (test/api/schemathesis.toml), on a throwaway stack seeded with real
// merchants, sessions and objects so that bearer routes run as a merchant and path ids resolve. Any failure —
// a 5xx, a status or header the document does not list, a body that breaks its schema, a request it calls
// valid that is refused with 400 or one it calls invalid that is accepted, a method it does not list that is
// not answered 405 — fails this test with Schemathesis's report. How to run it alone and read the report:
// docs/api.md.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack.js';
import { ensureSchemathesis, type Schemathesis } from '../../scripts/lib/schemathesis.js';
import {
  api, connectStorefrontBDemo, merchantWithProcessor, shopperPays, SHOPPER, storefrontACheckout, storefrontAMerchant, storefrontBCheckout, type Json, type Merchant,
} from '../e2e/checkout-helpers.js';

const POLICY = fileURLToPath(new URL('./schemathesis.toml', import.meta.url));
const HOOKS = fileURLToPath(new URL('./schemathesis_hooks.py', import.meta.url));
const OUT = path.resolve('test-artifacts/openapi-fuzz');
/**
 * How deep. `npm run test:fuzz` (FUZZ_DEPTH=deep) runs the policy as written (schemathesis.toml): every phase —
 * coverage (each operation's boundaries and invalid forms, about 4,000 cases and half the time), fuzzing with 25 drawn
 * cases per operation, stateful — about 6 minutes alone. `npm test` runs the fuzzing phase (valid and invalid data
 * both, every check) with QUICK_EXAMPLES cases per operation, then the stateful phase: every operation is still
 * exercised with every check, in about a fifth of the time. Same seed either way, so each run is repeatable.
 */
const DEEP = process.env.FUZZ_DEPTH === 'deep';
const QUICK_EXAMPLES = 8;
const QUICK = ['--phases', 'examples,fuzzing,stateful', '--max-examples', String(QUICK_EXAMPLES)];
/** Far above what one run sends: the limiters are tested in their own tests and must not answer 429 here. */
const UNLIMITED = '100000000/60';

let stack: TestStack;
let schemathesis: Promise<Schemathesis>;

beforeAll(async () => {
  schemathesis = ensureSchemathesis((line) => console.log(line));
  schemathesis.catch(() => undefined);
  stack = await startTestStack({
    RATE_LIMIT_LOGIN: UNLIMITED,
    RATE_LIMIT_AUTH_FAILURES: UNLIMITED,
    RATE_LIMIT_WEBHOOK_FAILURES: UNLIMITED,
    RATE_LIMIT_REGISTER: UNLIMITED,
    RATE_LIMIT_PASSWORD_RESET: UNLIMITED,
    RATE_LIMIT_CHECKOUT_CREATE: UNLIMITED,
    RATE_LIMIT_INIT_PAYMENT: UNLIMITED,
    RATE_LIMIT_DISCOUNT: UNLIMITED,
    RATE_LIMIT_CHECKOUT_PROGRESS: UNLIMITED,
    // Every public host name a merchant gives (a logo, a store) resolves to a documentation address, which the URL
    // guard refuses: the fuzzer's URLs never reach the network. The simulators stay reachable.
  }, { resolveHost: async () => ['192.0.2.1'] });
});
afterAll(async () => {
  await stack?.close();
});

async function created(what: string, res: Promise<{ status: number; body: Json }>): Promise<Json> {
  const { status, body } = await res;
  expect(status, `${what}: ${JSON.stringify(body)}`).toBeLessThan(300);
  return body;
}

interface Seed {
  /** The merchant the bearer routes run as. */
  merchant: Merchant;
  /** Another merchant, whose session the logout operations end. */
  logoutToken: string;
  sessionTokens: string[];
  objectIds: string[];
  checkoutIdentifiers: string[];
  /** S's: what its open sessions' init-payment, complete-cod and validate-discount take. */
  shippingRateIds: string[];
  orderBumpIds: string[];
  discountCodes: string[];
}

/**
 * Two merchants. A (the caller of the bearer routes) sells on a storefront A shop and has orders in each
 * terminal state, discount codes, order bumps, upsells and pixels. S sells on storefront B with cash on
 * delivery and has open sessions, which the fuzzer's init-payment and complete-cod calls can act on with S's
 * own shipping rates (the fuzzer changes A's rates, never S's).
 */
async function seed(): Promise<Seed> {
  const a = await storefrontAMerchant(stack, 'Fuzz Shop A');
  const s = await merchantWithProcessor(stack, 'Fuzz Store S');
  const store = await connectStorefrontBDemo(stack, s);
  const simple = store.products.filter((p) => p.option === undefined);
  await created('COD for S', api(stack, 'PATCH', '/api/merchant/config', { codEnabled: true }, s.token));
  await created('COD for A', api(stack, 'PATCH', '/api/merchant/config', { codEnabled: true }, a.token));

  const paid = await storefrontACheckout(stack, a.shop);
  await shopperPays(stack, paid);
  const cod = await storefrontACheckout(stack, a.shop);
  const codRate = (await api(stack, 'GET', `/api/checkout/session-bundle/${cod}`)).body.shipping[0].id as string;
  await created('COD order', api(stack, 'POST', `/api/checkout/${cod}/complete-cod`, { ...SHOPPER, shippingRateId: codRate }));
  const open: string[] = [];
  for (let i = 0; i < 4; i++) open.push(await storefrontBCheckout(stack, [{ productId: simple[i % simple.length]!.id, quantity: 1 + i }]));
  const shippingRateIds = ((await api(stack, 'GET', `/api/checkout/session-bundle/${open[0]}`)).body.shipping as Json[]).map((r) => r.id as string);
  const sBump = await created('order bump of S', api(stack, 'POST', '/api/merchant/order-bumps', { productId: String(simple[0]!.id), title: 'Extra beans', priceCents: 450 }, s.token));
  await created('discount of S', api(stack, 'POST', '/api/merchant/discounts', { code: 'BEANS10', type: 'percentage', percentOff: 10 }, s.token));
  const preview = await created('preview', api(stack, 'POST', '/api/merchant/preview', {}, a.token));

  const objectIds: string[] = [];
  const discounts = [
    { code: 'WELCOME10', type: 'percentage', percentOff: 10 },
    { code: 'FIVE-OFF', type: 'fixed_amount', amountOffCents: 500, minimumSubtotalCents: 2000 },
  ];
  for (const d of discounts) objectIds.push((await created('discount', api(stack, 'POST', '/api/merchant/discounts', d, a.token))).id as string);
  objectIds.push((await created('order bump', api(stack, 'POST', '/api/merchant/order-bumps', { productId: '1', title: 'Gift wrap', priceCents: 300 }, a.token))).id as string);
  objectIds.push((await created('upsell', api(stack, 'POST', '/api/merchant/upsells', { placement: 'post_purchase', headline: 'One more?', productId: '2', title: 'Socks', priceCents: 900, discountPercent: 20 }, a.token))).id as string);
  objectIds.push((await created('pixel', api(stack, 'POST', '/api/merchant/pixels', { platform: 'ga4', trackingId: 'G-AB12CD34EF', events: ['purchase'] }, a.token))).id as string);

  const slugs = await Promise.all([a, s].map(async (m) => (await api(stack, 'GET', '/api/merchant/me', undefined, m.token)).body.slug as string));
  const logout = await merchantWithProcessor(stack, 'Fuzz Logout');
  return {
    merchant: a,
    logoutToken: logout.token,
    sessionTokens: [paid, cod, ...open, preview.token as string],
    objectIds,
    checkoutIdentifiers: [...slugs, `${slugs[0]}.${stack.config.serviceDomain}`],
    shippingRateIds,
    orderBumpIds: [sBump.id as string],
    discountCodes: ['BEANS10', 'WELCOME10'],
  };
}

/** A libFuzzer-style dictionary file (what Schemathesis reads): one quoted entry per line. */
function writeDictionary(file: string, entries: string[]) {
  writeFileSync(path.join(OUT, file), entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // In the artifacts directory: whatever Hypothesis keeps on disk lands there, not in the checkout.
    const child = spawn(cmd, args, { env, cwd: OUT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('the OpenAPI document', () => {
  it('given a seeded stack / Schemathesis with every check over /docs/json / finds no failure', async () => {
    const st = await schemathesis;
    const data = await seed();

    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    const doc = await fetch(`${stack.apiUrl}/docs/json`);
    expect(doc.status).toBe(200);
    writeFileSync(path.join(OUT, 'openapi.json'), await doc.text());
    copyFileSync(POLICY, path.join(OUT, 'schemathesis.toml'));
    writeDictionary('session-tokens.dict', data.sessionTokens);
    writeDictionary('merchant-object-ids.dict', data.objectIds);
    writeDictionary('checkout-identifiers.dict', data.checkoutIdentifiers);
    writeDictionary('shipping-rate-ids.dict', data.shippingRateIds);
    writeDictionary('order-bump-ids.dict', data.orderBumpIds);
    writeDictionary('discount-codes.dict', data.discountCodes);

    const started = Date.now();
    const { code, output } = await run(
      st.python,
      ['-m', 'schemathesis.cli', '--config-file', path.join(OUT, 'schemathesis.toml'), 'run', path.join(OUT, 'openapi.json'),
        '--report', 'junit,ndjson', '--report-dir', OUT, ...(DEEP ? [] : QUICK)],
      {
        ...process.env,
        FUZZ_API_URL: stack.apiUrl,
        FUZZ_MERCHANT_TOKEN: data.merchant.token,
        FUZZ_LOGOUT_TOKEN: data.logoutToken,
        FUZZ_HOOKS: HOOKS,
        FUZZ_DROPPED_LOG: path.join(OUT, 'accepted-refusals.ndjson'),
        NO_COLOR: '1',
        PYTHONDONTWRITEBYTECODE: '1',
      },
    );
    writeFileSync(path.join(OUT, 'report.txt'), output);
    // One line here; the whole summary is in report.txt. Schemathesis closes with a pytest-style line
    // ("=== 3 warnings in 107.45s ===") that a reader of the CI log takes for the test run's own result.
    const cases = /Test cases:\s*\n\s*([^\n]+)/.exec(output)?.[1]?.trim() ?? 'no summary';
    console.log(`[openapi-fuzz] Schemathesis ${st.version} (${DEEP ? 'deep' : `quick: fuzzing and stateful, ${QUICK_EXAMPLES} examples`}), ${((Date.now() - started) / 1000).toFixed(1)} s, exit ${code}, test cases: ${cases}; summary in ${path.join(OUT, 'report.txt')}`);
    // Schemathesis's report from its failures on (every failing case with its curl line) is the message, or all of
    // it when it stopped before testing; test-artifacts/openapi-fuzz/ keeps the rest.
    if (code !== 0) {
      const failures = output.indexOf('=== FAILURES ===');
      expect.fail(`Schemathesis found failures (exit ${code}); full report in ${path.join(OUT, 'report.txt')}\n\n${failures < 0 ? output : output.slice(output.lastIndexOf('\n', failures) + 1)}`);
    }
    // The deep run alone takes about 6 minutes on an idle machine and over 10 on a loaded one: the limit is generous.
  }, 1_200_000);
});

// Apple Pay on the embedded checkout (issue 30, item 1): POST /api/merchant/processor/apple-pay-domain registers the
// merchant's own checkout host with Whop's Domains API (the processor simulator, sandbox/processor/domains.ts) through
// the apple-pay-domain workflow, and GET /api/merchant/processor's wallets view says Apple Pay is ready only once Whop
// reports `apple_pay.state` ready for that host, showing Whop's apple_pay issues (message, DNS records) until then.
// Each merchant sees and changes only its own registration.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { api, control, merchantWithProcessor, type Merchant } from '../../../test/e2e/checkout-helpers.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.close();
});

const wallets = async (m: Merchant) => {
  const res = await api(stack, 'GET', '/api/merchant/processor', undefined, m.token);
  expect(res.status).toBe(200);
  return res.body.wallets as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
};
const register = (m: Merchant, body: unknown = {}) => api(stack, 'POST', '/api/merchant/processor/apple-pay-domain', body, m.token);
const hostOf = async (m: Merchant) => `${(await stack.database.db.merchant.findUniqueOrThrow({ where: { id: m.id } })).slug}.${stack.config.serviceDomain}`.toLowerCase();
const whopDomains = () => [...stack.sims.processor.domains.domains.values()];
const businessOf = async (m: Merchant) => (await stack.database.db.processorConnection.findUniqueOrThrow({ where: { merchantId: m.id } })).businessId;

describe('registering the checkout host for Apple Pay', () => {
  it('given a Growth merchant on the embedded page / register, Apple refuses, the file is served, check again / pending, then what Whop asks, then ready', async () => {
    const m = await merchantWithProcessor(stack, 'Apple Shop', { plan: 'GROWTH' });
    const host = await hostOf(m);
    expect(await wallets(m)).toMatchObject({ status: 'embedded', ready: false, applePayDomain: { hostname: host, status: 'not_registered', issues: [], checkedAt: null } });

    const res = await register(m);

    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'embedded', ready: false, applePayDomain: { hostname: host, status: 'pending', issues: [], checkedAt: expect.any(String) } });
    expect(res.body.statusMessage).toContain('Whop is registering it with Apple');
    const added = whopDomains().filter((d) => d.hostname === host);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ accountId: await businessOf(m), applePay: expect.any(String), deleted: false });
    expect(await wallets(m)).toEqual(res.body);

    // Check again: Apple answered that it could not fetch the association file; Whop's issue says what to do.
    const refused = await register(m);
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ ready: false, applePayDomain: { status: 'action_required' } });
    expect(refused.body.applePayDomain.issues).toEqual([{
      code: 'apple_pay_unverified', message: expect.stringContaining(host), codeBlock: null,
      dnsRecords: [{ type: 'TXT', name: `_apple-pay.${host}`, value: expect.stringMatching(/^whop-apple-pay=/) }],
    }]);
    expect(refused.body.statusMessage).toContain('do what Whop asks below');
    expect(whopDomains().filter((d) => d.hostname === host)).toHaveLength(1);

    // Apple can fetch the file now; check again registers it again, and the retrieve after it reads ready.
    expect((await control(stack.urls.processor, 'POST', 'domains/association', { hostname: host, served: true })).status).toBe(200);
    const ready = await register(m);
    expect(ready.body).toMatchObject({ status: 'embedded', ready: true, applePayDomain: { hostname: host, status: 'ready', issues: [] } });
    expect(await wallets(m)).toEqual(ready.body);

    // Deleted on Whop's side: the next registration adds it again, which revives it under its id.
    stack.sims.processor.domains.remove(added[0]!);
    const revived = await register(m);
    expect(revived.body).toMatchObject({ applePayDomain: { status: 'pending' } });
    expect(whopDomains().filter((d) => d.hostname === host).map((d) => [d.id, d.deleted])).toEqual([[added[0]!.id, false]]);
  });

  it('given a hostname in the request / it is refused (400) and nothing is registered', async () => {
    const m = await merchantWithProcessor(stack, 'Sneaky Shop', { plan: 'GROWTH' });
    const res = await register(m, { hostname: 'victim.example.com' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_INPUT', error: expect.stringContaining('hostname') });
    expect(whopDomains().some((d) => d.hostname === 'victim.example.com')).toBe(false);
    expect((await wallets(m)).applePayDomain.status).toBe('not_registered');
  });

  it("given two merchants / each registers its own host on its own Whop company, and neither sees the other's", async () => {
    const a = await merchantWithProcessor(stack, 'Shop A', { plan: 'GROWTH' });
    const b = await merchantWithProcessor(stack, 'Shop B', { plan: 'GROWTH' });
    expect((await register(a)).status).toBe(200);
    const aView = await wallets(a);

    const bView = await wallets(b);
    expect(bView.applePayDomain).toMatchObject({ hostname: await hostOf(b), status: 'not_registered', issues: [] });
    expect(JSON.stringify(bView)).not.toContain(await hostOf(a));

    expect((await register(b)).status).toBe(200);
    expect(await wallets(a)).toEqual(aView);
    const bHost = await hostOf(b);
    const bDomain = whopDomains().find((d) => d.hostname === bHost);
    expect(bDomain?.accountId).toBe(await businessOf(b));
    expect(bDomain?.accountId).not.toBe(await businessOf(a));
  });

  it('bad states: no token 401; Starter 409 (not on plan); the hosted payment page 409 (nothing to register); no processor 409', async () => {
    expect((await api(stack, 'POST', '/api/merchant/processor/apple-pay-domain', {})).status).toBe(401);

    const starter = await merchantWithProcessor(stack, 'Starter Shop', { plan: 'STARTER' });
    const s = await register(starter);
    expect(s.status).toBe(409);
    expect(s.body).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining('Growth') });
    expect((await wallets(starter)).status).toBe('not_on_plan');

    const hosted = await merchantWithProcessor(stack, 'Hosted Shop', { plan: 'GROWTH' });
    expect((await api(stack, 'PATCH', '/api/merchant/config', { paymentPage: 'hosted' }, hosted.token)).status).toBe(200);
    const h = await register(hosted);
    expect(h.status).toBe(409);
    expect(h.body.code).toBe('CONFLICT');
    expect(await wallets(hosted)).toMatchObject({ status: 'hosted', ready: true, applePayDomain: null });

    const reg = await api(stack, 'POST', '/api/auth/register', { email: `bare-${Date.now()}@shop.test`, password: 'correct horse battery 9', shopName: 'Bare', phone: '+49 30 1234567' });
    const bare = await api(stack, 'POST', '/api/merchant/processor/apple-pay-domain', {}, reg.body.token as string);
    expect(bare.status).toBe(409);
    expect(bare.body.error).toContain('Connect the processor');
  });

  it("given a key without Whop's domain permissions (Whop answers 403) / 422 INVALID_PROCESSOR_KEY naming them, and nothing stored; a key Whop refuses (401) says to connect again", async () => {
    const m = await merchantWithProcessor(stack, 'No Perms Shop', { plan: 'GROWTH' });
    expect((await control(stack.urls.processor, 'POST', 'domains/permissions', { api_key: m.processorApiKey, permissions: ['domain:read'] })).status).toBe(200);
    const res = await register(m);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'INVALID_PROCESSOR_KEY', error: expect.stringContaining('lacks the domain:read and domain:manage permissions') });
    expect((await wallets(m)).applePayDomain.status).toBe('not_registered');
    expect(await stack.database.db.applePayDomain.findUnique({ where: { merchantId: m.id } })).toBeNull();

    const n = await merchantWithProcessor(stack, 'Revoked Key Shop', { plan: 'GROWTH' });
    expect((await control(stack.urls.processor, 'POST', 'faults', { mode: 'error', status: 401, match: '/api/v1/domains', count: 5 })).status).toBeLessThan(300);
    const revoked = await register(n);
    await control(stack.urls.processor, 'DELETE', 'faults');
    expect(revoked.status).toBe(422);
    expect(revoked.body).toMatchObject({ code: 'INVALID_PROCESSOR_KEY', error: expect.stringContaining('connect the processor again') });
  });
});

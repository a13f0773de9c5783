// Custom checkout domains end to end: HTTP → verification workflow → activities → the DNS simulator (a real DNS
// server the service's resolver queries); and wallets, which need no domain at all on Whop's hosted page (on the embedded
// page Apple Pay follows the checkout host: apple-pay-domain.test.ts).
// Outcomes are read over HTTP (status, checkout URLs, public config, CORS), in Temporal and in the sandboxes (mailbox).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDnsSimulator, type DnsSimulator } from '../../../sandbox/dns/index.js';
import { startTestStack, type TestStack } from '../../../test/harness/stack.js';
import { control, merchantWithProcessor, storefrontACheckout, storefrontAMerchant, type Json } from '../../../test/e2e/checkout-helpers.js';
import { givePaidPlan } from '../../../scripts/lib/stack/billing.js';
import { merchantForCheckoutHost } from '../../checkout-host.js';
import { ensureWebBuild } from '../../../scripts/web-build.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

let dns: DnsSimulator;
let stack: TestStack;

beforeAll(async () => {
  dns = createDnsSimulator();
  const { port } = await dns.udp.start();
  // The checkout page is served from web/dist (built when its sources changed).
  [stack] = await Promise.all([startTestStack({ DNS_SERVERS: `127.0.0.1:${port}` }), ensureWebBuild({ targets: ['checkout'] })]);
});
afterAll(async () => {
  await stack?.close();
  await dns?.udp.stop();
});

const db = () => stack.database.db;
let ip = 0;

async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const res = await stack.app.inject({
    method,
    url,
    payload: opts.body as Json | undefined,
    remoteAddress: `198.51.100.${(ip++ % 250) + 1}`,
    headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers },
  });
  return { status: res.statusCode, headers: res.headers, text: res.body, body: (String(res.headers['content-type'] ?? '').includes('json') ? res.json() : {}) as Json };
}

const newDomain = () => `checkout.shop-${randomBytes(4).toString('hex')}.com`;
const claim = (token: string, domain: unknown) => call('POST', '/api/merchant/domain', { token, body: { domain } });
const domainStatus = (token: string) => call('GET', '/api/merchant/domain/status', { token });
const verify = (token: string) => call('POST', '/api/merchant/domain/verify', { token });
const slugOf = async (token: string) => (await call('GET', '/api/merchant/me', { token })).body.slug as string;
const localOrigin = (host: string) => `http://${host}:${stack.config.api.port}`;

/** The wallets part of GET /api/merchant/processor. */
const walletsOf = async (token: string) => (await call('GET', '/api/merchant/processor', { token })).body.wallets as Json | null;

/** Whether a wallet-domain workflow (retired: workflows/custom-domains/wallet-domain.ts) was ever started for the merchant. */
const walletWorkflowStarted = (merchantId: string) =>
  stack.temporal.client.workflow.getHandle(WORKFLOWS.walletDomain.id(merchantId)).describe().then(() => true, (err: Error) => (err.name === 'WorkflowNotFoundError' ? false : Promise.reject(err)));

/** The emails earlier code sent to ask for a wallet domain (their tag). */
const walletDomainEmails = (to: string) => stack.sims.email.messages({ to, tag: 'wallet_domain_action' });

describe('claiming a custom domain', () => {
  let invalid: Awaited<ReturnType<typeof merchantWithProcessor>> | undefined;
  it.each([
    ['example.com', 'checkout.<your domain>'],
    ['shop.example.com', 'checkout.<your domain>'],
    ['https://checkout.example.com', 'hostname only'],
    ['203.0.113.7', 'IP address'],
    ['checkout.shop.localhost', 'not reachable'],
    ['checkout.demo.myshopify.com', 'store platform'],
    ['checkout.ex ample.com', 'not a valid hostname'],
  ])('given %j / it answers 400 INVALID_INPUT on body.domain and claims nothing', async (domain, why) => {
    const m = (invalid ??= await merchantWithProcessor(stack, 'Invalid Domains'));

    const res = await claim(m.token, domain);

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_INPUT', details: { fields: { 'body.domain': expect.stringContaining(why) } } });
    expect((await domainStatus(m.token)).status).toBe(404);
    expect(await db().customDomain.count({ where: { merchantId: m.id } })).toBe(0);
  });

  it('given a new checkout.<domain> / it answers 201 pending with the CNAME to the subdomain and the TXT token, checked once already; the same again answers the same claim, another one CONFLICT', async () => {
    const m = await merchantWithProcessor(stack, 'Claim Shop');
    const slug = await slugOf(m.token);
    const domain = newDomain();

    const res = await claim(m.token, ` ${domain.toUpperCase()}. `);

    expect(res.status).toBe(201);
    const token = (res.body.records as Json[])[1]!.value as string;
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(res.body).toMatchObject({
      domain,
      status: 'pending',
      records: [
        { type: 'CNAME', name: domain, value: `${slug}.localhost`, required: true },
        { type: 'TXT', name: `_checkout-verify.${domain.slice('checkout.'.length)}`, value: token, required: false },
      ],
      verifiedBy: null,
      checks: 1,
      lastError: `${domain} has no CNAME record yet`,
      checkoutOrigin: null,
      expiresAt: expect.any(String),
    });
    expect(new Date(res.body.expiresAt as string).getTime() - Date.now()).toBeGreaterThan(71 * 3_600_000);
    expect((await domainStatus(m.token)).body).toMatchObject({ domain, status: 'pending', checks: 1 });

    const again = await claim(m.token, domain);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ domain, status: 'pending', records: res.body.records });

    const other = await claim(m.token, newDomain());
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining(domain) });
    expect(await db().customDomain.count({ where: { merchantId: m.id } })).toBe(1);
  });

  it("given a domain another merchant claimed / it answers 409 DOMAIN_EXISTS; two merchants claiming one domain at once: exactly one gets it", async () => {
    const [a, b, c] = await Promise.all([merchantWithProcessor(stack, 'A Shop'), merchantWithProcessor(stack, 'B Shop'), merchantWithProcessor(stack, 'C Shop')]);
    const taken = newDomain();
    expect((await claim(a.token, taken)).status).toBe(201);

    const res = await claim(b.token, taken);

    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: `${taken} is already used by another merchant`, code: 'DOMAIN_EXISTS' });
    expect(await db().customDomain.count({ where: { merchantId: b.id } })).toBe(0);

    const contested = newDomain();
    const answers = await Promise.all([claim(b.token, contested), claim(c.token, contested)]);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(answers.find((r) => r.status === 409)!.body.code).toBe('DOMAIN_EXISTS');
    expect(await db().customDomain.count({ where: { hostname: contested } })).toBe(1);
  });

  it('given a claim that expired unproven / the real owner can take the domain from it', async () => {
    const [squatter, owner] = await Promise.all([merchantWithProcessor(stack, 'Squatter'), merchantWithProcessor(stack, 'Owner')]);
    const domain = newDomain();
    expect((await claim(squatter.token, domain)).status).toBe(201);
    // As the workflow leaves it after 72 hours without records (test/workflows/domain-timers.test.ts runs those hours).
    await db().customDomain.updateMany({ where: { merchantId: squatter.id }, data: { status: 'EXPIRED' } });
    expect((await domainStatus(squatter.token)).body).toMatchObject({ status: 'expired', expiresAt: null });

    const res = await claim(owner.token, domain);

    expect(res.status).toBe(201);
    expect((await domainStatus(squatter.token)).status).toBe(404);
    expect((await db().customDomain.findUniqueOrThrow({ where: { hostname: domain } })).merchantId).toBe(owner.id);
  });
});

describe('verifying and using a custom domain', () => {
  it('given an expired claim / when the CNAME exists and the merchant asks to verify / a new verification starts and it is verified', async () => {
    const m = await merchantWithProcessor(stack, 'Late Shop');
    const domain = newDomain();
    await claim(m.token, domain);
    await db().customDomain.updateMany({ where: { merchantId: m.id }, data: { status: 'EXPIRED' } });
    dns.records.add({ name: domain, type: 'CNAME', value: `${await slugOf(m.token)}.localhost` });

    const res = await verify(m.token);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ domain, status: 'verified', verifiedBy: 'cname', lastError: null, checkoutOrigin: localOrigin(domain) });
  });

  it('given a pending claim / when only the TXT token is published and the merchant asks to verify / it is verified by txt', async () => {
    const m = await merchantWithProcessor(stack, 'Txt Shop');
    const domain = newDomain();
    const claimed = await claim(m.token, domain);
    const txt = (claimed.body.records as Json[])[1]!;
    dns.records.add({ name: txt.name as string, type: 'TXT', value: txt.value as string });

    const res = await verify(m.token);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'verified', verifiedBy: 'txt' });
    expect((res.body.checks as number) >= 2).toBe(true);
  });

  it('given a pending claim / DELETE removes it, stops its verification, and the slot is free again', async () => {
    const m = await merchantWithProcessor(stack, 'Delete Shop');
    const domain = newDomain();
    await claim(m.token, domain);

    const res = await call('DELETE', '/api/merchant/domain', { token: m.token });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true, domain, checkoutOrigin: localOrigin(`${await slugOf(m.token)}.localhost`) });
    expect(await stack.temporal.client.workflow.getHandle(WORKFLOWS.customDomain.id(m.id)).result()).toMatchObject({ status: 'DELETED' });
    expect((await domainStatus(m.token)).status).toBe(404);
    expect((await call('DELETE', '/api/merchant/domain', { token: m.token })).status).toBe(404);
    expect((await verify(m.token)).status).toBe(404);
    expect((await claim(m.token, newDomain())).status).toBe(201);
  });

  it('given a merchant selling through storefront A / when its CNAME is verified / checkouts open at checkout.<domain>, the public config and CORS accept it; after DELETE everything falls back to the subdomain; Apple Pay in the embed follows the checkout host', async () => {
    const m = await storefrontAMerchant(stack, 'Custom Domain Shop');
    const slug = await slugOf(m.token);
    const subdomain = `${slug}.localhost`;
    // On the embedded payment page Apple Pay needs the checkout host verified with Whop (docs/processor.md): the host
    // the view names is the merchant's checkout host as it is now.
    const wallets = await walletsOf(m.token);
    expect(wallets).toMatchObject({ status: 'embedded', ready: false, applePayDomain: { hostname: subdomain, status: 'not_registered' } });

    const domain = newDomain();
    const apex = domain.slice('checkout.'.length);
    expect((await claim(m.token, domain)).body.status).toBe('pending');
    expect(await merchantForCheckoutHost(db(), stack.config, domain)).toBeNull(); // pending serves nothing
    expect((await call('GET', `/api/merchant/config/${domain}`)).status).toBe(404);

    dns.records.add({ name: domain, type: 'CNAME', value: subdomain });
    const verified = await verify(m.token);

    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ status: 'verified', verifiedBy: 'cname', checkoutOrigin: localOrigin(domain) });

    expect((await call('GET', '/api/merchant/me', { token: m.token })).body.checkoutOrigin).toBe(localOrigin(domain));

    // The shopper's click: the checkout URL is on the custom domain.
    const cartToken = stack.sims.storefrontA.createCart(m.shop.host, [{ variantId: m.shop.products[0]!.variants[0]!.id, quantity: 1 }]);
    const created = await call('POST', '/api/checkout/create', { body: { platform: 'storefront-a', shop: m.shop.host, cartToken } });
    expect(created.status).toBe(201);
    expect(created.body.checkoutUrl).toBe(`${localOrigin(domain)}/checkout/${created.body.token as string}`);

    // The shopper opens it: the checkout page is served for Host checkout.<domain>, with the session in it.
    const sessionToken = created.body.token as string;
    const page = await call('GET', `/checkout/${sessionToken}`, { headers: { host: `${domain}:${stack.config.api.port}`, accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.text).toContain('Checkout · Custom Domain Shop');
    expect(page.text).toContain(`"token":"${sessionToken}"`);
    // Elsewhere (the app origin) the session is sent to its custom domain.
    const elsewhere = await call('GET', `/checkout/${sessionToken}`, { headers: { host: `127.0.0.1:${stack.config.api.port}`, accept: 'text/html' } });
    expect(elsewhere.status).toBe(302);
    expect(elsewhere.headers.location).toBe(`${localOrigin(domain)}/checkout/${sessionToken}`);

    // The Host resolves to the merchant, the public config answers by it (with or without port).
    expect(await merchantForCheckoutHost(db(), stack.config, `${domain.toUpperCase()}:${stack.config.api.port}`)).toEqual({ merchantId: m.id, slug });
    for (const id of [domain, `${domain}:${stack.config.api.port}`, slug, subdomain]) {
      const config = await call('GET', `/api/merchant/config/${encodeURIComponent(id)}`);
      expect(config.status, id).toBe(200);
      expect(config.body.slug).toBe(slug);
    }

    // CORS: https://checkout.<domain> and https://<domain> pass; a sibling host does not.
    for (const origin of [`https://${domain}`, `https://${apex}`, localOrigin(domain)]) {
      const res = await call('GET', '/health', { headers: { origin } });
      expect(res.status, origin).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
    }
    const sibling = await call('GET', '/health', { headers: { origin: `https://www.${apex}` } });
    expect(sibling.status).toBe(403);
    expect(sibling.body.code).toBe('ORIGIN_NOT_ALLOWED');

    // Apple Pay follows the checkout host: the custom domain is now the one to register with Whop.
    expect(await walletsOf(m.token)).toMatchObject({ status: 'embedded', ready: false, applePayDomain: { hostname: domain, status: 'not_registered', issues: [] } });

    // Removed: URLs, config and wallets fall back to the subdomain.
    const removed = await call('DELETE', '/api/merchant/domain', { token: m.token });
    expect(removed.status).toBe(200);
    expect(removed.body.checkoutOrigin).toBe(localOrigin(subdomain));
    expect((await call('GET', '/api/merchant/me', { token: m.token })).body.checkoutOrigin).toBe(localOrigin(subdomain));
    const token = await storefrontACheckout(stack, m.shop);
    expect((await db().checkoutSession.count({ where: { token, merchantId: m.id } }))).toBe(1);
    const again = await call('POST', '/api/checkout/create', { body: { platform: 'storefront-a', shop: m.shop.host, cartToken: stack.sims.storefrontA.createCart(m.shop.host, [{ variantId: m.shop.products[0]!.variants[0]!.id, quantity: 1 }]) } });
    expect(again.body.checkoutUrl).toBe(`${localOrigin(subdomain)}/checkout/${again.body.token as string}`);
    expect(await merchantForCheckoutHost(db(), stack.config, domain)).toBeNull();
    expect((await call('GET', `/api/merchant/config/${domain}`)).status).toBe(404);
    expect(await walletsOf(m.token)).toEqual(wallets);
    // Neither the connection nor the domain's changes started the retired wallet-domain workflow or sent its email.
    expect(await walletWorkflowStarted(m.id)).toBe(false);
    expect(walletDomainEmails(m.email)).toEqual([]);
  });
});

describe("wallets on Whop's hosted page", () => {
  it('given a merchant on Growth / when it connects its processor / wallets are offered by Whop\'s page at once: no domain, no workflow, no email, nothing to confirm', async () => {
    const account = await control(stack.urls.processor, 'POST', 'accounts', { businessName: 'Wallet Shop' });
    const email = `owner-${randomBytes(4).toString('hex')}@shop.test`;
    const reg = await call('POST', '/api/auth/register', { body: { email, password: 'correct horse battery 9', shopName: 'Wallet Shop', phone: '+49 30 1234567' } });
    expect(reg.status).toBe(201);
    const token = reg.body.token as string;
    const merchantId = reg.body.merchant.id as string;
    await givePaidPlan(db(), merchantId, 'GROWTH');
    // No processor: no card payments, so no wallets either.
    expect(await walletsOf(token)).toBeNull();

    const connected = await call('POST', '/api/merchant/processor/connect', { token, body: { apiKey: account.body.apiKey } });
    expect(connected.status).toBe(200);

    // On the embedded checkout (the default): not offered until the checkout host is registered with Whop, said plainly.
    expect(await walletsOf(token)).toMatchObject({ status: 'embedded', ready: false, applePayDomain: { status: 'not_registered' }, statusMessage: expect.stringContaining("choose \"On Whop's payment page\"") });
    // On Whop's hosted page, right away, with nothing asked: Apple Pay and Google Pay with no domain set-up.
    expect((await call('PATCH', '/api/merchant/config', { token, body: { paymentPage: 'hosted' } })).status).toBe(200);
    expect(await walletsOf(token)).toEqual({
      status: 'hosted',
      ready: true,
      statusMessage: "Apple Pay and Google Pay are offered on Whop's checkout page, where shoppers pay: Whop needs no domain set-up for it.",
      applePayDomain: null,
    });
    // The connection started nothing for wallets (it returns after any child it starts) and nothing was sent.
    expect(await walletWorkflowStarted(merchantId)).toBe(false);
    expect(walletDomainEmails(email)).toEqual([]);
    expect(await db().walletDomain.findUnique({ where: { merchantId } })).toBeNull();

    // The confirmation that vouched for a domain in Whop's dashboard is gone: there is nothing to vouch for.
    for (const method of ['POST', 'DELETE'] as const) {
      const res = await call(method, '/api/merchant/processor/wallet-domain/confirm', { token, body: method === 'POST' ? { domain: `${await slugOf(token)}.localhost` } : undefined });
      expect(res).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    }
    expect(await walletsOf(token)).toMatchObject({ status: 'hosted', ready: true });
  });

  it('given merchants on Demo and on Starter / their wallet status says what Whop\'s page does for their plan, with the plan that has them', async () => {
    const demo = await merchantWithProcessor(stack, 'Wallet Demo', { plan: 'demo' });
    expect((await call('PATCH', '/api/merchant/config', { token: demo.token, body: { paymentPage: 'hosted' } })).status).toBe(200);
    expect(await walletsOf(demo.token)).toEqual({ status: 'hosted', ready: false, statusMessage: expect.stringContaining('On Demo only your previews show them.'), applePayDomain: null });
    // On the embedded page (the default) Demo has nothing ready either, and says what is missing.
    expect((await call('PATCH', '/api/merchant/config', { token: demo.token, body: { paymentPage: 'embedded' } })).status).toBe(200);
    expect(await walletsOf(demo.token)).toMatchObject({ status: 'embedded', ready: false, applePayDomain: { status: 'not_registered' } });

    const starter = await merchantWithProcessor(stack, 'Wallet Starter', { plan: 'STARTER' });
    expect(await walletsOf(starter.token)).toEqual({
      status: 'not_on_plan',
      ready: false,
      statusMessage: "Wallet payments (Apple Pay, Google Pay) is not included in the Starter plan: it comes with Growth (Billing). Whop's checkout page does not offer them to your shoppers.",
      applePayDomain: null,
    });
  });
});

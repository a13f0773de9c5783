// The DNS client (node:dns c-ares resolver) against the DNS simulator over real UDP/TCP, with records
// published through the simulator's HTTP control API as a merchant would at their DNS provider.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDnsSimulator, type DnsSimulator } from '../../sandbox/dns/index.js';
import { IntegrationError, isIntegrationError } from '../errors.js';
import { createDnsClient, type DnsClient } from './index.js';

let sim: DnsSimulator;
let control: string;
let server: string;
let dns: DnsClient;

async function put(name: string, type: string, value: string) {
  const res = await fetch(`${control}/_control/records`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, type, value }) });
  expect(res.status).toBe(201);
}

async function fault(rule: Record<string, unknown>) {
  const res = await fetch(`${control}/_control/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) });
  expect(res.status).toBe(201);
}

async function failure(promise: Promise<unknown>): Promise<IntegrationError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof IntegrationError)) throw new Error(`expected an IntegrationError, got ${String(err)}`);
  return err;
}

beforeAll(async () => {
  sim = createDnsSimulator();
  await sim.app.listen({ port: 0, host: '127.0.0.1' });
  control = `http://127.0.0.1:${(sim.app.server.address() as AddressInfo).port}`;
  server = `127.0.0.1:${(await sim.udp.start()).port}`;
  dns = createDnsClient({ servers: [server], timeoutMs: 300, tries: 1 });
});
afterAll(() => sim.app.close());
beforeEach(() => sim.reset());

describe('given a merchant published verification records', () => {
  beforeEach(async () => {
    await put('checkout.shop.test', 'CNAME', 'acme.checkout.localhost');
    await put('acme.checkout.localhost', 'A', '127.0.0.1');
    await put('_checkout-verify.shop.test', 'TXT', 'checkout-verify=tok_123');
    await put('_checkout-verify.shop.test', 'TXT', `v=long ${'x'.repeat(400)}`);
  });

  it('when the CNAME is resolved (in any case), then its target comes back', async () => {
    expect(await dns.resolveCname('Checkout.SHOP.test')).toEqual(['acme.checkout.localhost']);
  });

  it('when the TXT is resolved, then every value comes back whole, a long one joined from its chunks', async () => {
    const values = await dns.resolveTxt('_checkout-verify.shop.test');
    expect(values).toHaveLength(2);
    expect(values).toContain('checkout-verify=tok_123');
    expect(values).toContain(`v=long ${'x'.repeat(400)}`);
  });

  it('when the A of the CNAME name is resolved, then the target address comes back', async () => {
    expect(await dns.resolveA('checkout.shop.test')).toEqual(['127.0.0.1']);
  });

  it('when an unknown name or a missing type is resolved, then the answer is empty, not an error', async () => {
    expect(await dns.resolveCname('checkout.unknown.test')).toEqual([]);
    expect(await dns.resolveTxt('checkout.shop.test')).toEqual([]);
    expect(await dns.resolveCname('_checkout-verify.shop.test')).toEqual([]);
  });
});

describe('given records changed through the control API', () => {
  it('when one is added and later removed, then lookups follow at once', async () => {
    expect(await dns.resolveTxt('_checkout-verify.new.test')).toEqual([]);
    await put('_checkout-verify.new.test', 'TXT', 'tok_new');
    expect(await dns.resolveTxt('_checkout-verify.new.test')).toEqual(['tok_new']);
    const res = await fetch(`${control}/_control/records?name=_checkout-verify.new.test&type=TXT`, { method: 'DELETE' });
    expect(await res.json()).toEqual({ removed: 1 });
    expect(await dns.resolveTxt('_checkout-verify.new.test')).toEqual([]);
  });
});

describe('given failures, each maps to one IntegrationError kind', () => {
  beforeEach(() => put('checkout.shop.test', 'CNAME', 'acme.checkout.localhost'));

  it('when the server answers SERVFAIL, then it is unavailable and retryable', async () => {
    await fault({ mode: 'error', match: 'shop.test', method: 'CNAME' });
    const err = await failure(dns.resolveCname('checkout.shop.test'));
    expect(err).toMatchObject({ system: 'dns', kind: 'unavailable', retryable: true });
    expect(err.message).toContain('ESERVFAIL');
  });

  it('when the query is dropped, then it is a timeout', async () => {
    await fault({ mode: 'timeout', match: 'shop.test' });
    expect(await failure(dns.resolveCname('checkout.shop.test'))).toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('when the answer is slower than the time-out, then it is a timeout; when slow but in time, then it is the answer', async () => {
    await fault({ mode: 'slow', delayMs: 600, match: 'shop.test' });
    expect((await failure(dns.resolveCname('checkout.shop.test'))).kind).toBe('timeout');
    await fault({ mode: 'slow', delayMs: 150, match: 'shop.test' });
    const patient = createDnsClient({ servers: [server], timeoutMs: 1_000, tries: 1 });
    expect(await patient.resolveCname('checkout.shop.test')).toEqual(['acme.checkout.localhost']);
  });

  it('when nothing serves DNS at the address, then it is unavailable', async () => {
    const gone = createDnsSimulator();
    const { port } = await gone.udp.start();
    await gone.udp.stop();
    const err = await failure(createDnsClient({ servers: [`127.0.0.1:${port}`], timeoutMs: 300, tries: 1 }).resolveA('checkout.shop.test'));
    expect(err.kind).toBe('unavailable');
  });

  it('when the name is not a domain name, then it is rejected', async () => {
    expect((await failure(dns.resolveA('bad..name'))).kind).toBe('rejected');
  });
});

describe('given two injected failures', () => {
  beforeEach(() => put('checkout.shop.test', 'CNAME', 'acme.checkout.localhost'));

  it('when the resolver may try three times, then two dropped queries are absorbed within one lookup', async () => {
    await fault({ mode: 'timeout', count: 2, match: 'shop.test' });
    const persistent = createDnsClient({ servers: [server], timeoutMs: 200, tries: 3 });
    expect(await persistent.resolveCname('checkout.shop.test')).toEqual(['acme.checkout.localhost']);
    expect(sim.faults.list()).toEqual([]);
  });

  it('when the caller retries retryable failures, then the third attempt after two SERVFAILs succeeds', async () => {
    // c-ares does not retry a SERVFAIL from the only server: retrying is the caller's (the activity's) job.
    await fault({ mode: 'error', count: 2, match: 'shop.test' });
    const kinds: string[] = [];
    let targets: string[] | undefined;
    for (let attempt = 1; !targets && attempt <= 5; attempt++) {
      try {
        targets = await dns.resolveCname('checkout.shop.test');
      } catch (err) {
        if (!isIntegrationError(err) || !err.retryable) throw err;
        kinds.push(err.kind);
      }
    }
    expect(kinds).toEqual(['unavailable', 'unavailable']);
    expect(targets).toEqual(['acme.checkout.localhost']);
  });
});

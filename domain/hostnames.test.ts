import { describe, expect, it } from 'vitest';
import { apexOf, customDomainProblem, dnsRecordsFor, judgeDnsFindings, nextCheckDelayMs, normalizeHostname } from './hostnames.js';

const policy = { serviceDomain: 'checkout-service.io', storefrontAShopSuffix: '.myshopify.com' };
const problem = (input: string) => customDomainProblem(normalizeHostname(input), policy);
const expected = { slug: 'acme', serviceDomain: 'checkout-service.io', token: 'tok123' };

describe('which checkout domains a merchant may claim', () => {
  it.each(['checkout.example.com', 'CHECKOUT.Example.COM.', ' checkout.shop.co.uk ', 'checkout.xn--bcher-kva.de', 'checkout.my-shop.store'])('accepts %s', (input) => {
    expect(problem(input)).toBeUndefined();
  });

  it.each([
    ['', 'required'],
    ['example.com', 'checkout.<your domain>'],
    ['shop.example.com', 'checkout.<your domain>'],
    ['checkout.com', 'checkout.<your domain>'],
    ['https://checkout.example.com', 'hostname only'],
    ['checkout.example.com:443', 'hostname only'],
    ['checkout.example.com/pay', 'hostname only'],
    ['checkout.-bad.com', 'not a valid hostname'],
    ['checkout..example.com', 'not a valid hostname'],
    ['checkout.exa_mple.com', 'not a valid hostname'],
    ['checkout.bücher.de', 'punycode'],
    ['192.168.1.10', 'IP address'],
    ['checkout.10.0.0.1', 'top-level domain'],
    ['checkout.shop.localhost', 'not reachable'],
    ['checkout.printer.local', 'not reachable'],
    ['checkout.checkout-service.io', 'service itself'],
    ['checkout.acme.checkout-service.io', 'service itself'],
    ['checkout.acme.myshopify.com', 'store platform'],
    [`checkout.${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(60)}.com`, 'at most 253'],
  ])('refuses %j (%s)', (input, why) => {
    expect(problem(input)).toContain(why);
  });

  it('refuses a domain above our own service domain (its apex would let us serve ourselves)', () => {
    expect(customDomainProblem('checkout.service.io', { serviceDomain: 'pay.service.io', storefrontAShopSuffix: '.myshopify.com' })).toContain('service itself');
  });

  it('normalizes case, spaces and the trailing dot, and finds the apex', () => {
    expect(normalizeHostname(' Checkout.Example.COM. ')).toBe('checkout.example.com');
    expect(apexOf('checkout.shop.co.uk')).toBe('shop.co.uk');
  });
});

describe('the DNS records a merchant is told to create', () => {
  it('is the CNAME to their subdomain (required) and the TXT token at _checkout-verify.<domain> (alternative)', () => {
    expect(dnsRecordsFor('checkout.example.com', expected).map(({ type, name, value, required }) => ({ type, name, value, required }))).toEqual([
      { type: 'CNAME', name: 'checkout.example.com', value: 'acme.checkout-service.io', required: true },
      { type: 'TXT', name: '_checkout-verify.example.com', value: 'tok123', required: false },
    ]);
  });
});

describe('judging what DNS answered', () => {
  const judge = (cnames: string[], txts: string[]) => judgeDnsFindings('checkout.example.com', { cnames, txts }, expected);

  it('given the CNAME to the merchant\'s own subdomain / it is verified by cname', () => {
    expect(judge(['ACME.checkout-service.io.'], [])).toEqual({ verifiedBy: 'cname', problem: null });
  });

  it('given only the TXT token / it is verified by txt', () => {
    expect(judge([], ['other', ' tok123 '])).toEqual({ verifiedBy: 'txt', problem: null });
  });

  it('given nothing / not verified, nothing misconfigured', () => {
    expect(judge([], [])).toEqual({ verifiedBy: null, problem: 'checkout.example.com has no CNAME record yet', misconfigured: false });
  });

  it("given a CNAME to another merchant's subdomain and a wrong token / not verified, misconfigured, saying what was seen", () => {
    const verdict = judge(['other.checkout-service.io'], ['tok999']);
    expect(verdict).toMatchObject({ verifiedBy: null, misconfigured: true });
    expect(verdict.problem).toContain('points to other.checkout-service.io, not acme.checkout-service.io');
    expect(verdict.problem).toContain('_checkout-verify.example.com does not hold the verification token');
  });
});

describe('the re-check schedule', () => {
  it('waits 1 minute, doubling, capped at an hour', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map((n) => nextCheckDelayMs(n) / 60_000)).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
  });
});

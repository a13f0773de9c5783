// The OpenAPI document states some rules as patterns built apart from the code that enforces them (a slug, a
// custom domain, a password, the order list's statuses, a pasted shop URL). Each property here draws values
// around the rule's edges — whitespace, letter case, reserved names, lengths — and asserts that the document's
// JSON Schema and the server accept exactly the same ones. Patterns are read as JSON Schema readers do (with
// the `u` flag: code points), the server's functions as the routes call them.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { z } from 'zod';
import { slugProblem, RESERVED_SLUGS } from '../../domain/merchant/slug.js';
import { customDomainProblem, normalizeHostname } from '../../domain/hostnames.js';
import { checkPasswordPolicy, COMMON_PASSWORDS } from '../../domain/merchant/password-policy.js';
import { CHECKOUT_STATUSES } from '../../domain/checkout/checkout-status.js';
import { isValidShopHost } from '../../integrations/storefront-a/oauth.js';
import { normalizeShopHost } from '../routes/merchant/storefront-a.js';
import { customDomainPattern } from './custom-domain.js';
import { newPassword, slugInput } from './merchant.js';
import { ordersQuery } from './orders.js';
import { pastedShop } from './storefront-a.js';
import { trimmed, webUrlPattern } from './text.js';

type Json = Record<string, unknown>;
const RUNS = { numRuns: 3000 };

/** What a JSON Schema reader says of a string, for the keywords these schemas use. */
function jsonAccepts(schema: Json, value: string): boolean {
  const length = [...value].length;
  if (typeof schema.minLength === 'number' && length < schema.minLength) return false;
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) return false;
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return false;
  if (Array.isArray(schema.allOf) && !schema.allOf.every((s) => jsonAccepts(s as Json, value))) return false;
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((s) => jsonAccepts(s as Json, value))) return false;
  if (schema.not && jsonAccepts(schema.not as Json, value)) return false;
  return true;
}

const documented = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input' }) as Json;

/** Strings made of these pieces (characters or whole words), up to `max` of them. */
const madeOf = (pieces: string[], max = 12) => fc.array(fc.constantFrom(...pieces), { maxLength: max }).map((p) => p.join(''));

const SPACES = [' ', '\t', '\n', '\u00a0', '\u2003', '\ufeff'];

describe('document patterns and the server agree', () => {
  it('a slug: 3-40 letters, digits and inner hyphens in any case with spaces around, not reserved', () => {
    const schema = documented(slugInput);
    const values = fc.oneof(
      madeOf(['a', 'Z', '7', '-', ...SPACES, 'api', 'WWW', 'Admin', 'checkout', 'é', 'K', '_'], 14),
      fc.tuple(fc.constantFrom(...SPACES, ''), fc.constantFrom(...RESERVED_SLUGS), fc.constantFrom(...SPACES, '', 'x', '-x')).map((p) => p.join('')),
      fc.string({ unit: fc.constantFrom('a', 'b', '-', '1'), minLength: 38, maxLength: 42 }),
    );
    fc.assert(fc.property(values, (raw) => {
      const server = slugInput.safeParse(raw).success && slugProblem(raw.trim().toLowerCase()) === undefined;
      expect(jsonAccepts(schema, raw), JSON.stringify(raw)).toBe(server);
    }), RUNS);
  });

  it.each([
    { serviceDomain: 'localhost', storefrontAShopSuffix: '.myshopify.com' },
    { serviceDomain: 'pay.example.com', storefrontAShopSuffix: '.myshopify.com' },
  ])('a custom checkout domain under the policy %j', (policy) => {
    const pattern = new RegExp(customDomainPattern(policy).source, 'u');
    const labels = ['checkout', 'CHECKOUT', 'shop', 'example', 'pay', 'com', 'de', 'localhost', 'local', 'myshopify', 'xn--bcher-kva', 'a1', '-a', 'a-', '0', '123', 'x'.repeat(63), 'y'.repeat(64)];
    const host = fc.tuple(
      fc.constantFrom('', ...SPACES),
      fc.array(fc.constantFrom(...labels), { minLength: 1, maxLength: 5 }).map((l) => l.join('.')),
      fc.constantFrom('', '.', '..', ':443', '/path', '@x'),
      fc.constantFrom('', ...SPACES),
    ).map((p) => p.join(''));
    const longHost = fc.integer({ min: 240, max: 260 }).map((n) => `checkout.${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(n - 201)}.com`);
    fc.assert(fc.property(fc.oneof(host, longHost), (raw) => {
      expect(pattern.test(raw), JSON.stringify(raw)).toBe(customDomainProblem(normalizeHostname(raw), policy) === undefined);
    }), RUNS);
  });

  it('a new password: 10-200 characters, not one repeated, not a common one in any case with spaces around', () => {
    const schema = documented(newPassword);
    const values = fc.oneof(
      madeOf(['a', 'B', '1', '!', ' ', '😀', 'é', 'aaaaa'], 60),
      fc.tuple(fc.constantFrom('', ' ', '\t'), fc.constantFrom(...COMMON_PASSWORDS).map((p) => p.toUpperCase()), fc.constantFrom('', ' ', 'x')).map((p) => p.join('')),
      fc.tuple(fc.constantFrom('a', '😀', ' '), fc.integer({ min: 8, max: 12 })).map(([c, n]) => c.repeat(n)),
      fc.integer({ min: 195, max: 205 }).map((n) => 'ab'.repeat(n).slice(0, n)),
    );
    fc.assert(fc.property(values, (raw) => {
      expect(jsonAccepts(schema, raw), JSON.stringify(raw)).toBe(checkPasswordPolicy(raw) === undefined);
    }), RUNS);
  });

  it('the order list\'s status filter: one or several statuses, any case, commas and spaces between', () => {
    const status = ((documented(ordersQuery).properties as Json).status as Json).anyOf as Json[];
    const [asString, asArray] = status as [Json, Json & { items: Json; contains: Json }];
    const value = madeOf([...CHECKOUT_STATUSES, 'open', 'Failed', ',', ' ', '\t', 'PAID', 'x'], 6);
    fc.assert(fc.property(value, (raw) => {
      const server = ordersQuery.safeParse({ status: raw }).success;
      expect(jsonAccepts(asString, raw), JSON.stringify(raw)).toBe(server);
    }), RUNS);
    fc.assert(fc.property(fc.array(value, { minLength: 1, maxLength: 3 }), (raws) => {
      const server = ordersQuery.safeParse({ status: raws }).success;
      const json = raws.every((r) => jsonAccepts(asArray.items, r)) && raws.some((r) => jsonAccepts(asArray.contains, r));
      expect(json, JSON.stringify(raws)).toBe(server);
    }), RUNS);
  });

  it('a pasted shop: its host or URL in any case with spaces around, as normalizeShopHost keeps it', () => {
    const schema = pastedShop('.myshopify.com');
    const pieces = ['https://', 'HTTP://', 'ftp://', 'demo', 'Demo-Shop', '-x', 'a'.repeat(61), '.myshopify.com', '.MyShopify.COM', '.example.com', '/admin', '?x=1', '#top', ' ', '\t', '\n'];
    fc.assert(fc.property(madeOf(pieces, 6), (raw) => {
      const server = [...raw].length <= 255 && isValidShopHost(normalizeShopHost(raw));
      expect(schema.safeParse(raw).success, JSON.stringify(raw)).toBe(server);
    }), RUNS);
  });

  it('a trimmed format: the value as sent matches when its trimmed value matches the core', () => {
    const core = /^\+?[0-9 ()-]{6,20}$/;
    const schema = trimmed(core, 'a phone number');
    fc.assert(fc.property(madeOf(['1', '2', ' ', '+', '(', ')', '-', '\t', '\u00a0', 'x'], 26), (raw) => {
      expect(schema.safeParse(raw).success, JSON.stringify(raw)).toBe(core.test(raw.trim()));
    }), RUNS);
  });

  it('a URL the document calls valid is one the URL parser takes', () => {
    const pattern = new RegExp(webUrlPattern(['http', 'https']).source, 'u');
    const pieces = ['https://', 'http://', 'a', 'B', '0', '.', '-', '0x1f', '99', '256', ':', '443', '99999', '/', '?', '#', '%', 'é', ' '];
    fc.assert(fc.property(madeOf(pieces, 10), (raw) => {
      if (pattern.test(raw)) expect(URL.canParse(raw), raw).toBe(true);
    }), RUNS);
    for (const url of ['https://shop.example', 'https://shop.example:8443/a?b#c', 'http://127.0.0.1:4020/stores/demo', 'https://xn--bcher-kva.example/']) {
      expect(pattern.test(url), url).toBe(true);
    }
  });
});

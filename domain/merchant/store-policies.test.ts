// What a store's policy pages become before they are kept and linked from the checkout page: only web pages
// (http/https), titles as one trimmed line of at most 80 characters, one per kind, in the page's order; whatever is
// left out is named, for the merchant.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { STORE_POLICY_KINDS, STORE_POLICY_TITLE_MAX, storedStorePolicies, storePoliciesOf, storePolicySchema } from './store-policies.js';

describe('store policies from a store', () => {
  it('given a javascript:, data:, mailto:, relative or credentialed address / the policy is left out, saying why', () => {
    const bad = ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'mailto:shop@example.com', '/policies/refund-policy', 'ftp://shop.example/terms', 'https://user:pass@shop.example/terms', '', 'not a url'];
    for (const url of bad) {
      const { policies, left } = storePoliciesOf([{ kind: 'refund', title: 'Refund policy', url }]);
      expect(policies, url).toEqual([]);
      expect(left, url).toEqual([expect.stringMatching(/^refund \(url: /)]);
    }
  });

  it('given http and https pages, on IP addresses and ports too / kept, written as the browser will follow them', () => {
    const { policies, left } = storePoliciesOf([
      { kind: 'terms', title: 'Terms', url: ' http://127.0.0.1:8080/terms/ ' },
      { kind: 'privacy', title: 'Privacy', url: 'https://shop.example/privacy policy/?a="b"' },
    ]);
    expect(left).toEqual([]);
    expect(policies).toEqual([
      { kind: 'privacy', title: 'Privacy', url: 'https://shop.example/privacy%20policy/?a=%22b%22' },
      { kind: 'terms', title: 'Terms', url: 'http://127.0.0.1:8080/terms/' },
    ]);
  });

  it('given titles with spaces, line breaks, or too long / one trimmed line, cut at 80 characters with an ellipsis; an empty one is left out', () => {
    const long = 'Terms and conditions '.repeat(10);
    const { policies, left } = storePoliciesOf([
      { kind: 'refund', title: '  Returns &\n refunds ', url: 'https://s.example/r' },
      { kind: 'terms', title: long, url: 'https://s.example/t' },
      { kind: 'privacy', title: ' \t ', url: 'https://s.example/p' },
      { kind: 'shipping', title: 42, url: 'https://s.example/s' },
    ]);
    expect(policies.map((p) => p.title)).toEqual(['Returns & refunds', `${long.slice(0, STORE_POLICY_TITLE_MAX - 1).trimEnd()}…`]);
    expect(policies[1]!.title.length).toBeLessThanOrEqual(STORE_POLICY_TITLE_MAX);
    expect(left).toEqual(['privacy (title: no title)', 'shipping (title: Invalid input: expected string, received number)']);
  });

  it('given two of a kind, in any order / the first of each, in the order the page lists them', () => {
    const { policies } = storePoliciesOf([
      { kind: 'contact', title: 'Contact', url: 'https://s.example/c' },
      { kind: 'privacy', title: 'Privacy', url: 'https://s.example/p' },
      { kind: 'refund', title: 'Refunds', url: 'https://s.example/r1' },
      { kind: 'refund', title: 'Refunds again', url: 'https://s.example/r2' },
    ]);
    expect(policies.map((p) => [p.kind, p.title])).toEqual([['refund', 'Refunds'], ['privacy', 'Privacy'], ['contact', 'Contact']]);
  });

  it('given any title and address / what is kept is always a short non-empty line and an http(s) URL (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...STORE_POLICY_KINDS), fc.string({ maxLength: 300 }), fc.oneof(fc.webUrl(), fc.string()), (kind, title, url) => {
        const parsed = storePolicySchema.safeParse({ kind, title, url });
        if (!parsed.success) return;
        expect(parsed.data.title.length).toBeGreaterThan(0);
        expect(parsed.data.title.length).toBeLessThanOrEqual(STORE_POLICY_TITLE_MAX);
        expect(parsed.data.title).not.toMatch(/^\s|\s$|[\n\r\t]/);
        expect(new URL(parsed.data.url).protocol).toMatch(/^https?:$/);
      }),
    );
  });

  it('given what the database holds / only what passes the checks today is shown; anything else (not a list, unknown kinds) is nothing', () => {
    expect(storedStorePolicies(null)).toEqual([]);
    expect(storedStorePolicies({ kind: 'refund' })).toEqual([]);
    expect(storedStorePolicies([{ kind: 'cookies', title: 'Cookies', url: 'https://s.example/c' }, { kind: 'refund', title: 'Refunds', url: 'https://s.example/r' }, 'x'])).toEqual([{ kind: 'refund', title: 'Refunds', url: 'https://s.example/r' }]);
  });
});

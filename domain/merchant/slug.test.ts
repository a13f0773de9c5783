import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { slugFromName, slugProblem, withSuffix, SLUG_MAX } from './slug.js';

describe('slugs', () => {
  it.each(['shoes', 'my-shop-2', 'a1b', 'x'.repeat(40)])('accepts %s', (slug) => expect(slugProblem(slug)).toBeUndefined());
  it.each(['ab', 'x'.repeat(41), 'Shoes', 'my_shop', '-shop', 'shop-', 'my--shop', 'www', 'api', 'admin', 'checkout', 'mail', 'café'])(
    'refuses %s',
    (slug) => expect(slugProblem(slug)).toEqual(expect.any(String)),
  );
  it('derives readable slugs from shop names', () => {
    expect(slugFromName("Café Zoë's Shoes!")).toBe('cafe-zoes-shoes');
    expect(slugFromName('AB')).toBe('ab-shop');
    expect(slugFromName('Admin')).toBe('admin-shop');
    expect(slugFromName('!!!')).toBeUndefined();
  });
  it('always derives a valid slug (or none), whatever the name', () => {
    fc.assert(fc.property(fc.string({ maxLength: 120 }), (name) => {
      const slug = slugFromName(name);
      if (slug !== undefined) expect(slugProblem(slug)).toBeUndefined();
    }));
  });
  it('keeps suffixed slugs within bounds and valid', () => {
    fc.assert(fc.property(fc.string({ maxLength: 120 }), (name) => {
      const slug = slugFromName(name);
      if (slug === undefined) return;
      const suffixed = withSuffix(slug, 'k3x9');
      expect(suffixed.length).toBeLessThanOrEqual(SLUG_MAX);
      expect(slugProblem(suffixed)).toBeUndefined();
    }));
  });
});

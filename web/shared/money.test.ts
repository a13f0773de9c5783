import { describe, expect, it } from 'vitest';
import { formatMoney } from './money.js';

// Intl separates the amount and the symbol with a no-break space in some locales.
const plain = (s: string) => s.replace(/\s/g, ' ');

describe('amounts on the page', () => {
  it('given minor units / each currency shows its own number of decimals in the shopper\'s locale', () => {
    expect(plain(formatMoney(1234, 'EUR', 'de-DE'))).toBe('12,34 €');
    expect(formatMoney(1234, 'EUR', 'en-US')).toBe('€12.34');
    // JPY has no minor units: 1234 is ¥1,234, not ¥12.34.
    expect(formatMoney(1234, 'JPY', 'en-US')).toBe('¥1,234');
    expect(plain(formatMoney(1234, 'KWD', 'en-US'))).toBe('KWD 1.234');
  });

  it('given a currency the catalogue does not know / it still formats, with two decimals', () => {
    expect(formatMoney(500, 'XXX', 'en-US')).toContain('5.00');
  });
});

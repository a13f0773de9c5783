import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkoutTheme, contrast, DEFAULT_PRIMARY, luminance, TEXT_CONTRAST, textOn, UI_CONTRAST } from './brand-colors.js';

const hexColor = fc.integer({ min: 0, max: 0xffffff }).map((n) => `#${n.toString(16).padStart(6, '0')}`);

describe('contrast (WCAG 2.x)', () => {
  it('given black and white / the ratio is 21, and a color against itself is 1', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#777777', '#777777')).toBe(1);
    expect(luminance('#ffffff')).toBe(1);
  });

  it('given any background / the chosen label color reaches 4.5:1', () => {
    fc.assert(fc.property(hexColor, (bg) => contrast(textOn(bg), bg) >= TEXT_CONTRAST));
  });
});

describe('checkout theme from the merchant colors', () => {
  it('given a dark enough primary / it is used as is, with white labels', () => {
    const theme = checkoutTheme('#0b5d1e', null);
    expect(theme.primary).toBe('#0b5d1e');
    expect(theme.onPrimary).toBe('#ffffff');
    expect(theme.link).toBe('#0b5d1e');
    expect(theme.corrections).toEqual([]);
  });

  it('given a very light primary (yellow) / the button is darkened to stand out, labels and links stay readable', () => {
    const theme = checkoutTheme('#ffee58', '#fff59d');
    expect(theme.primary).not.toBe('#ffee58');
    expect(contrast(theme.primary, '#ffffff')).toBeGreaterThanOrEqual(UI_CONTRAST);
    expect(contrast(theme.link, '#ffffff')).toBeGreaterThanOrEqual(TEXT_CONTRAST);
    expect(theme.corrections.length).toBeGreaterThan(0);
  });

  it('given missing or malformed colors / the defaults are used', () => {
    expect(checkoutTheme(null, undefined).primary).toBe(DEFAULT_PRIMARY);
    expect(checkoutTheme('red', '#12').primary).toBe(DEFAULT_PRIMARY);
  });

  it('given any primary and accent / buttons, hover and links all meet their contrast targets', () => {
    fc.assert(
      fc.property(hexColor, hexColor, (p, a) => {
        const t = checkoutTheme(p, a);
        return (
          contrast(t.primary, '#ffffff') >= UI_CONTRAST &&
          contrast(t.accent, '#ffffff') >= UI_CONTRAST &&
          contrast(t.onPrimary, t.primary) >= TEXT_CONTRAST &&
          contrast(t.onAccent, t.accent) >= TEXT_CONTRAST &&
          contrast(t.link, '#ffffff') >= TEXT_CONTRAST
        );
      }),
    );
  });
});

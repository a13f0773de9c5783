// The checkout page's dictionaries: every language has every key English has (the type says so too), fills in the
// same {values}, leaves nothing empty and nothing in English by oversight; and a shopper gets the first of their
// languages the page speaks.
import { describe, expect, it } from 'vitest';
import { expectTranslated } from '../../../test/harness/translations.js';
import { CHECKOUT_LANGUAGES, checkoutLanguageOf, EN, fillMessage } from './index.js';

/** Words that are the same in English and that language (checked by hand, not an oversight). */
const SAME_AS_ENGLISH: Record<string, string[]> = { de: ['optional', 'regionOnly'], fr: ['contactHeading', 'total', 'province'], es: ['subtotal', 'total'], it: [], nl: ['contactHeading'] };
const others = Object.entries(CHECKOUT_LANGUAGES).filter(([language]) => language !== 'en');

describe('the checkout page in every language', () => {
  it('speaks English, German, French, Spanish, Italian and Dutch', () => {
    expect(Object.keys(CHECKOUT_LANGUAGES).sort()).toEqual(['de', 'en', 'es', 'fr', 'it', 'nl']);
  });

  it.each(others)('given %s / every key of English, no other, each non-empty with the same {values}, and translated', (language, messages) => {
    expectTranslated(language, messages, EN, SAME_AS_ENGLISH[language]!);
  });
});

describe('the shopper\'s language', () => {
  it.each([
    [['de-DE', 'en'], 'de'],
    [['pt-BR', 'fr-CA', 'en'], 'fr'],
    [['de_CH'], 'de'],
    [['NL'], 'nl'],
    [['pt', 'ja'], 'en'],
    [[], 'en'],
    [['english'], 'en'],
  ] as const)('given %j / %s', (tags, language) => {
    expect(checkoutLanguageOf(tags)).toBe(language);
  });

  it('fills in values by name and leaves an unknown one as written', () => {
    expect(fillMessage(CHECKOUT_LANGUAGES.de.pay, { total: '12,00 €' })).toBe('12,00 € bezahlen');
    expect(fillMessage('{a} and {b}', { a: 1 })).toBe('1 and {b}');
    expect(fillMessage('{constructor}', {})).toBe('{constructor}');
  });
});

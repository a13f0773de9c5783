// The shopper's email words: every language has every key English has, fills in the same {values}, leaves nothing
// empty or in English by oversight; the language and the money format follow the shopper's recorded locale.
import { describe, expect, it } from 'vitest';
import { expectTranslated } from '../../../test/harness/translations.js';
import { EN, SHOPPER_EMAIL_LANGUAGES, shopperEmailLanguage, shopperMoneyLocale } from './index.js';

/** The same word in English and that language (checked by hand). */
const SAME_AS_ENGLISH: Record<string, string[]> = { de: [], fr: ['total'], es: ['subtotal', 'total'], it: [], nl: [] };

describe('the shopper\'s emails in every language', () => {
  it.each(Object.entries(SHOPPER_EMAIL_LANGUAGES).filter(([l]) => l !== 'en'))('given %s / every key, the same {values}, translated', (language, words) => {
    expectTranslated(language, words, EN, SAME_AS_ENGLISH[language]!);
  });

  it.each([
    ['de-AT', 'de', 'de-AT'],
    ['nl', 'nl', 'nl'],
    ['pt-BR', 'en', 'en'],
    [null, 'en', 'en'],
  ] as const)('given the recorded locale %s / words in %s, amounts formatted for %s', (locale, language, money) => {
    expect(shopperEmailLanguage(locale)).toBe(language);
    expect(shopperMoneyLocale(locale)).toBe(money);
  });
});

// One check for every dictionary of words shown to shoppers (the checkout page's, the emails'): the translation has
// exactly English's keys, each non-empty with the same {values}, and none left in English unless listed as the same
// word in that language (checked by hand).
import { expect } from 'vitest';

const placeholders = (text: string) => [...text.matchAll(/\{([a-zA-Z]+)\}/g)].map((m) => m[1]).sort();

export function expectTranslated(language: string, words: Record<string, string>, english: Record<string, string>, sameAsEnglish: readonly string[]): void {
  expect(Object.keys(words).sort()).toEqual(Object.keys(english).sort());
  for (const [key, source] of Object.entries(english)) {
    const text = words[key]!;
    expect(text.trim(), `${language}.${key}`).not.toBe('');
    expect(placeholders(text), `${language}.${key}`).toEqual(placeholders(source));
    if (!sameAsEnglish.includes(key)) expect(text, `${language}.${key} is still English`).not.toBe(source);
  }
}

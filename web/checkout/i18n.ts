// The page's words in the shopper's language. The page route embeds the chosen language's dictionary with the session
// (domain/checkout-messages), English included, so the script carries no words of its own (its size budget). Set once
// at start (main.tsx), before the first render. A key the dictionary lacks shows as the key itself: visible, and the
// every-language browser test fails on it.
import type { ComponentChild } from 'preact';
import type { CheckoutMessageKey } from '../../domain/checkout/checkout-messages/en.js';
import { fillMessage } from '../../domain/checkout/checkout-messages/fill.js';
import { browserLocale } from '../shared/money.js';

let words: Partial<Record<CheckoutMessageKey, string>> = {};
let spoken = 'en';

/** Takes the embedded dictionary: only its string entries count. */
export function setLanguage(language: string | undefined, messages: unknown): void {
  if (language) {
    spoken = language;
    document.documentElement.lang = language;
  }
  if (!messages || typeof messages !== 'object') return;
  words = Object.fromEntries(Object.entries(messages as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

const word = (key: CheckoutMessageKey): string => words[key] ?? key;

/**
 * The language sent with the shopper's details (their emails are written in it, countries named in it): the
 * browser's tag when it is the page's language ("de-AT" on a German page), else the page's ("de" when the store's
 * language won over the browser's English), else the browser's (a Portuguese browser on an English page).
 */
export function detailsLanguage(browserTag: string | null): string | null {
  const browserLanguage = browserTag?.split('-')[0]?.toLowerCase();
  if (browserTag && browserLanguage === spoken) return browserTag;
  return spoken !== 'en' ? spoken : browserTag;
}

/**
 * The locale the page formats in (money, country names, the default country): the browser's when it is the page's
 * language, else the page's own ("fr" on a French shop seen in an English browser: "54,70 €", "États-Unis").
 */
export function pageLocale(): string | undefined {
  const browser = browserLocale();
  let tag: string | null = null;
  try {
    tag = browser ? Intl.getCanonicalLocales(browser)[0] ?? null : null;
  } catch {
    tag = null;
  }
  return detailsLanguage(tag) ?? undefined;
}

/** The message `key` with its `{name}` values filled in. */
export function t(key: CheckoutMessageKey, values?: Record<string, string | number>): string {
  return fillMessage(word(key), values);
}

/** The message `key` as parts, its `{name}` values being elements (a bold email): word order stays the language's. */
export function tParts(key: CheckoutMessageKey, values: Record<string, ComponentChild>): ComponentChild[] {
  return word(key).split(/(\{[a-zA-Z]+\})/).map((part) => {
    const name = /^\{([a-zA-Z]+)\}$/.exec(part)?.[1];
    return name !== undefined && Object.hasOwn(values, name) ? values[name] : part;
  });
}

// The page's words in the shopper's language. The page route embeds the chosen language's dictionary with the session
// (domain/checkout-messages); the script itself carries English, which stands in for anything missing. Set once at
// start (main.tsx), before the first render.
import type { ComponentChild } from 'preact';
import { EN, type CheckoutMessageKey, type CheckoutMessages } from '../../domain/checkout-messages/en.js';
import { fillMessage } from '../../domain/checkout-messages/fill.js';
import { browserLocale } from '../shared/money.js';

let words: CheckoutMessages = EN;
let spoken = 'en';

/** Takes the embedded dictionary: only its string entries for known keys count; the rest stays English. */
export function setLanguage(language: string | undefined, messages: unknown): void {
  if (language) {
    spoken = language;
    document.documentElement.lang = language;
  }
  if (!messages || typeof messages !== 'object') return;
  const given = messages as Record<string, unknown>;
  words = Object.fromEntries(Object.entries(EN).map(([key, english]) => [key, typeof given[key] === 'string' ? given[key] : english])) as CheckoutMessages;
}

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
  return fillMessage(words[key], values);
}

/** The message `key` as parts, its `{name}` values being elements (a bold email): word order stays the language's. */
export function tParts(key: CheckoutMessageKey, values: Record<string, ComponentChild>): ComponentChild[] {
  return words[key].split(/(\{[a-zA-Z]+\})/).map((part) => {
    const name = /^\{([a-zA-Z]+)\}$/.exec(part)?.[1];
    return name !== undefined && Object.hasOwn(values, name) ? values[name] : part;
  });
}

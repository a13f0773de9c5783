// The shopper's language, sent with init-payment and complete-cod and stored with their details: the order emails
// name countries in it ("Deutschland" for a German shopper). The checkout page sends the browser's
// navigator.language as `locale`; without it, the request's Accept-Language says. A body `locale` that is no
// language tag is refused (400); an unusable header is ignored (it is not the client's choice).
import { canonicalLanguage, LANGUAGE_TAG, LANGUAGE_TAG_MAX_LENGTH } from '../../domain/language.js';
import { shopperDetails } from './shopper.js';
import { trimmed } from './text.js';

export const shopperLocale = trimmed(LANGUAGE_TAG, 'must be a language tag such as de-DE', { max: LANGUAGE_TAG_MAX_LENGTH })
  .transform((tag) => canonicalLanguage(tag) ?? tag)
  .describe("The shopper's language (BCP 47, e.g. de-DE): the order emails name countries in it. Default: the request's Accept-Language");

/** init-payment's and complete-cod's body: the shopper's details and, optionally, their language. */
export const shopperDetailsWithLanguage = shopperDetails.extend({ locale: shopperLocale.optional() });

/** The languages of an Accept-Language header, most preferred first (highest q, first on ties); unusable tags left out. */
export function acceptedLanguages(header: string | string[] | undefined): string[] {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return [];
  return value
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';').map((p) => p.trim());
      const q = params.find((p) => /^q=/i.test(p));
      return { tag, index, q: q === undefined ? 1 : Number(q.slice(2)) };
    })
    .filter((l) => Number.isFinite(l.q) && l.q > 0 && l.tag !== '*')
    .sort((x, y) => y.q - x.q || x.index - y.index)
    .flatMap(({ tag }) => canonicalLanguage(tag) ?? []);
}

/** The preferred language of an Accept-Language header, or null. */
export function acceptedLanguage(header: string | string[] | undefined): string | null {
  return acceptedLanguages(header)[0] ?? null;
}

/** The details the session's workflow records: the body's language, else the header's; none when neither says. */
export function withShopperLanguage<T extends { locale?: string }>(body: T, acceptLanguage: string | string[] | undefined): T {
  const locale = body.locale ?? acceptedLanguage(acceptLanguage) ?? undefined;
  const { locale: _sent, ...details } = body;
  return (locale === undefined ? details : { ...details, locale }) as T;
}

// A shopper's language as a BCP 47 tag, as browsers (navigator.language) and stores (WordPress's de_DE) send
// them: language[-Script][-REGION][-variant]. Pure: the API validates with it, the checkout page checks what it
// sends with it, the emails name countries in the canonical tag.

/** The accepted form of a tag, "-" or "_" between its parts (what the OpenAPI document states as the pattern). */
export const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:[-_][A-Za-z]{4})?(?:[-_](?:[A-Za-z]{2}|[0-9]{3}))?(?:[-_](?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))?$/;
export const LANGUAGE_TAG_MAX_LENGTH = 35;

/** The tag in its canonical form ("de_de" → "de-DE"); null when it is not one. */
export function canonicalLanguage(value: string): string | null {
  const tag = value.trim();
  if (tag.length > LANGUAGE_TAG_MAX_LENGTH || !LANGUAGE_TAG.test(tag)) return null;
  try {
    return Intl.getCanonicalLocales(tag.replace(/_/g, '-'))[0] ?? null;
  } catch {
    return null;
  }
}

// Strings as the API reads them, described exactly in the OpenAPI document. People paste and type text with
// stray spaces around it, so a value is trimmed (String.prototype.trim) before it is used — but what the
// document states (JSON Schema's pattern and maxLength) is about the value as sent. Each helper validates the
// raw value with the same regex the document shows and counts length in characters (code points), as JSON
// Schema does, not in UTF-16 units as zod's .max() would: an emoji is one character on both sides.
import { z } from 'zod';

/** What String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator), as the body of a regex class. */
export const TRIMMED_CLASS = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

const NOT_BLANK = new RegExp(`[^${TRIMMED_CLASS}]`);

/** A string of at most `max` characters (code points) as sent. */
export function chars(max: number, message = `at most ${max} characters`) {
  return z
    .string()
    .check(z.refine((s: string) => [...s].length <= max, { message, abort: true }))
    .meta({ maxLength: max });
}

/**
 * Text people type (a name, a title, a city): at most `max` characters as sent; with `required`, not blank
 * (the message says what to enter). Answers the value trimmed.
 */
export function text(max: number, opts: { required?: string } = {}) {
  const base = chars(max);
  return (opts.required === undefined ? base : base.regex(NOT_BLANK, opts.required)).trim();
}

/**
 * A value in a fixed format (`core`, anchored with ^…$), which may arrive with whitespace around it: the value
 * as sent must match the core with only whitespace around it, and the answer is the core (trimmed). The
 * lookarounds pin the core to the trimmed value, so a core that may itself hold spaces (a phone number) is
 * checked as trim() leaves it.
 */
export function trimmed(core: RegExp, message: string, opts: { max?: number } = {}) {
  const inner = unanchored(core);
  const raw = new RegExp(`^[${TRIMMED_CLASS}]*(?![${TRIMMED_CLASS}])(?:${inner})(?<![${TRIMMED_CLASS}])[${TRIMMED_CLASS}]*$`);
  return (opts.max === undefined ? z.string() : chars(opts.max)).regex(raw, message).trim();
}

/** The source of a regex anchored with ^…$, without the anchors (to combine it with others). */
export function unanchored(re: RegExp): string {
  if (!re.source.startsWith('^') || !re.source.endsWith('$')) throw new Error(`${re.source} is not anchored with ^…$`);
  return re.source.slice(1, -1);
}

/** `text` as a regex source that matches it literally (only the characters special outside a class are escaped, so the source stays valid with the `u` flag too). */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `word` matched in any letter case, for patterns the document states without regex flags (JSON Schema has none). */
export function caseless(word: string): string {
  return [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : escapeRegex(c))).join('');
}

// A web address as the URL guard (security/ssrf.ts) and WHATWG URL parsing take it: scheme, a host of two or
// more labels or a dotted IPv4 address, an optional port, then anything without whitespace. A last label
// that reads as a number (digits, or 0x…) would make the parser take the host for a broken IPv4 address.
const LABEL = '[A-Za-z0-9-]+';
const LAST_LABEL = '(?!0[xX][0-9A-Fa-f]*(?![A-Za-z0-9-]))[A-Za-z0-9-]*[A-Za-z][A-Za-z0-9-]*';
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const NAME_HOST = `(?:${LABEL}\\.)+${LAST_LABEL}`;
const HOST = `(?:${NAME_HOST}|${OCTET}(?:\\.${OCTET}){3})`;
const PORT = '(?::(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d\\d|6[0-4]\\d{3}|[1-5]\\d{4}|[1-9]\\d{0,3}|0))?';

/**
 * An absolute URL with one of these schemes (lower-case, as every client writes them). `names: true` leaves out
 * IP address hosts: a URL the server fetches names its host (an https certificate is for a name, and the URL guard
 * refuses most addresses anyway).
 */
export function webUrlPattern(schemes: readonly ('http' | 'https')[], opts: { names?: boolean } = {}): RegExp {
  return new RegExp(`^(?:${schemes.join('|')})://${opts.names ? NAME_HOST : HOST}${PORT}(?:[/?#]\\S*)?$`);
}

/** An https URL with a host name, of at most `max` characters (surrounding whitespace dropped). */
export const httpsUrl = (max: number) => trimmed(webUrlPattern(['https'], { names: true }), HTTPS_URL_MESSAGE, { max });

export const HTTPS_URL_MESSAGE = 'must be an https URL with a host name (https://shop.example/…)';

/**
 * A URL the server fetches (a logo, a product picture, a store): https, or one of `allowedOrigins` (the sandbox's simulators in local
 * runs), as the URL guard takes them (security/ssrf.ts).
 */
export function fetchedUrl(max: number, allowedOrigins: readonly string[]) {
  if (allowedOrigins.length === 0) return httpsUrl(max);
  const origins = allowedOrigins.map((o) => escapeRegex(new URL(o).origin));
  const either = new RegExp(`^(?:${unanchored(webUrlPattern(['https'], { names: true }))}|(?:${origins.join('|')})(?:[/?#]\\S*)?)$`);
  return trimmed(either, HTTPS_URL_MESSAGE, { max });
}

/**
 * A credential a platform issued (API key, consumer key or secret): printable ASCII without spaces, as
 * platforms issue them, at most `max` characters; whitespace around it (from a paste) is dropped. An emoji or
 * a zero-width space in a key is a paste gone wrong, refused here rather than sent to the platform.
 */
export const credential = (what: string, max: number) =>
  trimmed(new RegExp(`^[\\x21-\\x7e]{1,${max}}$`), `the ${what} must be 1-${max} printable ASCII characters without spaces`);

/**
 * An email address: zod's pattern (the document shows it; no `format: email`, whose RFC 5322 reading accepts and
 * refuses other addresses), whitespace around it dropped, lower-cased.
 */
export const emailAddress = (message: string) => trimmed(z.regexes.email, message, { max: 254 }).toLowerCase();

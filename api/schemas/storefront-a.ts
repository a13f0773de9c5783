// Storefront A shop hosts as the API reads them, with patterns the OpenAPI document states exactly. The suffix
// is configuration (STOREFRONT_A_SHOP_SUFFIX), so these schemas are built per suffix (once each).
import { z } from 'zod';
import { SHOP_NAME } from '../../domain/shop-host.js';
import { caseless, escapeRegex, trimmed } from './text.js';

/** The shop name in any letter case (the API lower-cases it). */
const ANY_CASE_NAME = SHOP_NAME.replaceAll('a-z', 'A-Za-z');

function memo<T>(build: (suffix: string) => T): (suffix: string) => T {
  const built = new Map<string, T>();
  return (suffix) => {
    if (!built.has(suffix)) built.set(suffix, build(suffix));
    return built.get(suffix)!;
  };
}

/** Exactly a shop host (<name><suffix>, lower-case), as the platform sends it in its redirects. */
export const exactShopHost = memo((suffix) => z.string().regex(new RegExp(`^${SHOP_NAME}${escapeRegex(suffix)}$`), `must be a shop host: <name>${suffix}`));

/** A shop host in any letter case, with whitespace around it (trimmed and lower-cased), as the script tag sends it. */
export const shopHost = memo((suffix) => trimmed(new RegExp(`^${ANY_CASE_NAME}${caseless(suffix)}$`), `must be a shop host: <name>${suffix}`).toLowerCase());

/**
 * What a merchant pastes for its shop: the host, or its https/http URL with a path (api/routes/merchant/storefront-a.ts
 * normalizeShopHost keeps the host), in any letter case, with whitespace around it; at most 255 characters.
 */
export const pastedShop = memo((suffix) => {
  const core = new RegExp(`^(?:${caseless('http')}[sS]?://)?${ANY_CASE_NAME}${caseless(suffix)}(?:[/?#][^\\n\\r\\u2028\\u2029]*)?$`);
  return trimmed(core, `must be the shop host: <name>${suffix}`, { max: 255 });
});

// Storefront A's shop hosts: <name><suffix>, the name one lowercase DNS label. Pure, so the API's schemas (and the
// document they produce) and the OAuth client spell the same rule.

/** The name part of a shop host (a regex source, unanchored). */
export const SHOP_NAME = '[a-z0-9][a-z0-9-]{0,59}';

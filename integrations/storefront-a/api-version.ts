// The Admin and Storefront API version we speak. Shopify supports each quarterly version for 12 months and
// then serves requests with the oldest supported one ("fall forward"), so a stale pin silently changes the
// protocol under us: api-version.test.ts fails once this pin leaves the window Shopify's own client computes.
import { getCurrentSupportedApiVersions } from '@shopify/graphql-client';

export const STOREFRONT_A_API_VERSION = '2026-10';

/** The stable versions Shopify supports today (drops the release candidate and `unstable`). */
export function supportedStableVersions(): string[] {
  return getCurrentSupportedApiVersions().slice(0, 4);
}

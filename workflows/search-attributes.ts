// Custom search attributes the workflows set so an operator can find any session in the Temporal Web UI
// (registered on the dev server by `npm start` and the test harness, on the time-skipping test server by
// test/harness/temporal.ts; see docs/operations.md). One list: the typed keys workflows upsert.
import { defineSearchAttributeKey, TypedSearchAttributes } from '@temporalio/common';

/** The keys workflows upsert with `upsertSearchAttributes([{ key, value }])`. */
export const searchAttributeKeys = {
  merchantId: defineSearchAttributeKey('MerchantId', 'KEYWORD'),
  checkoutStatus: defineSearchAttributeKey('CheckoutStatus', 'KEYWORD'),
  storePlatform: defineSearchAttributeKey('StorePlatform', 'KEYWORD'),
};

/** Name → type as the Temporal CLI takes them (`--search-attribute MerchantId=Keyword`). */
export const SEARCH_ATTRIBUTES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(searchAttributeKeys).map((key) => [key.name, TypedSearchAttributes.toMetadataType(key.type)]),
);

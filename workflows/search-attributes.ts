// Custom search attributes the workflows set so an operator can find any session in the Temporal Web UI
// (registered on the dev server by `npm start` and the test harness; see docs/operations.md).
export const SEARCH_ATTRIBUTES = {
  MerchantId: 'Keyword',
  CheckoutStatus: 'Keyword',
  StorePlatform: 'Keyword',
} as const;

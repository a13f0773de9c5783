// The real platforms behind the spec's neutral names, as a merchant reads them: every text a merchant sees (the
// dashboard, emails to merchants, errors the dashboard shows) names Shopify, WooCommerce and Whop. Our own API paths,
// codes and enum values keep the neutral names (storefront-a, STOREFRONT_B, processor).
export const STORE_PLATFORM_NAME = { STOREFRONT_A: 'Shopify', STOREFRONT_B: 'WooCommerce' } as const;
export const PROCESSOR_NAME = 'Whop';

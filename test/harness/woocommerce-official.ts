// WooCommerce's official JS client, for contract tests. The package is CommonJS compiled from ESM: Node's
// ESM import answers module.exports (the class is its .default), vitest's interop answers the class.
import woo from '@woocommerce/woocommerce-rest-api';

type WooCommerceRestApiClass = typeof woo extends { default: infer C } ? C : typeof woo;
export const WooCommerceRestApi = ((woo as unknown as { default?: unknown }).default ?? woo) as WooCommerceRestApiClass;

// Contract test: our plugin's cart-prices route (GET wc-hosted-checkout/v1/cart-prices, 1.4.0, class-hosted-checkout-rest.php
// `cart_prices`) through WooCommerce's official JS client (@woocommerce/woocommerce-rest-api) against the simulator, with
// the same key auth as /wc/v3 (OAuth 1.0a over http). The route answers what WooCommerce's own three reads answer (it
// makes them inside WordPress): the simulator's answer is checked against its own wc/v3 routes here. The PHP itself is run
// by store-extensions/woocommerce/tests/RestTest.php and, on a real WordPress + WooCommerce, by test/real/woocommerce.test.ts.
import { describe, expect, it } from 'vitest';
import { WooCommerceRestApi } from '../../test/harness/woocommerce-official.js';
import { useStorefrontBSimulator } from '../../test/harness/simulators.js';
import { DEMO_STORE } from './simulator.js';

const b = useStorefrontBSimulator();
const api = (version: string, secret: string = DEMO_STORE.consumerSecret) =>
  new WooCommerceRestApi({ url: `${b.url}/stores/demo`, consumerKey: DEMO_STORE.consumerKey, consumerSecret: secret, version: version as 'wc/v3' });
const plugin = (secret?: string) => api('wc-hosted-checkout/v1', secret);
const control = async (path: string, body: unknown) => {
  const res = await fetch(`${b.url}/_control/stores/demo/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(200);
};
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e) as Promise<{ response?: { status: number; data: { code: string } } } | null>;
const demo = () => b.sim.stores.get('demo')!;

describe('GET wc-hosted-checkout/v1/cart-prices by the official client', () => {
  it('given products and variations of a cart / one answer: the wc/v3 fields of each, the variations with their product, the store currency', async () => {
    const simple = demo().products.find((p) => p.variations.length === 0)!;
    const variable = demo().products.find((p) => p.variations.length > 1)!;
    const [v0, v1] = variable.variations;

    const res = await plugin().get('cart-prices', { products: `${simple.id},${variable.id},999`, variations: `${variable.id}:${v1!.id},${variable.id}:${v0!.id},999:5` });

    expect(res.status).toBe(200);
    const v3 = api('wc/v3');
    const products = (await v3.get('products', { include: `${simple.id},${variable.id}`, per_page: 100 })).data as Array<Record<string, unknown>>;
    const variations = (await v3.get(`products/${variable.id}/variations`, { include: `${v0!.id},${v1!.id}`, per_page: 100 })).data as Array<Record<string, unknown>>;
    const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
    expect(res.data).toEqual({
      currency: (await v3.get('data/currencies/current')).data.code,
      products: products.map((p) => ({ ...pick(p, ['id', 'name', 'type', 'price', 'stock_status', 'variations']), images: (p.images as unknown[]).slice(0, 1) })),
      variations: variations.map((v) => ({ product_id: variable.id, ...pick(v, ['id', 'price', 'stock_status', 'image', 'attributes']) })),
    });
    expect(res.data.currency).toBe('EUR');
  });

  it('given only variations, or no ids at all / no product is listed (an empty include= would list them all)', async () => {
    const variable = demo().products.find((p) => p.variations.length > 0)!;
    const res = await plugin().get('cart-prices', { variations: `${variable.id}:${variable.variations[0]!.id}` });
    expect(res.data.products).toEqual([]);
    expect(res.data.variations.map((v: { id: number }) => v.id)).toEqual([variable.variations[0]!.id]);
    expect((await plugin().get('cart-prices', {})).data).toEqual({ currency: 'EUR', products: [], variations: [] });
  });

  it('given ids that are no id list (a 0, a trailing comma, a pair without its variation) / 400 rest_invalid_param, as WordPress checks the route\'s patterns', async () => {
    for (const query of [{ products: '0' }, { products: '12,' }, { products: '1 2' }, { products: '1', variations: '12' }, { products: '1', variations: '12:' }, { products: Array.from({ length: 101 }, (_, i) => i + 1).join(',') }]) {
      const err = await failure(plugin().get('cart-prices', query));
      expect(err?.response, JSON.stringify(query)).toMatchObject({ status: 400, data: { code: 'rest_invalid_param' } });
    }
  });

  it('given a wrong secret / 401 and nothing answered', async () => {
    expect((await failure(plugin('cs_wrong').get('cart-prices', { products: '1' })))?.response?.status).toBe(401);
  });

  it('given the plugin older than 1.4.0, or deactivated / no such route: rest_no_route 404 (the service then reads over wc/v3)', async () => {
    await control('plugin', { version: '1.3.0' });
    expect((await failure(plugin().get('cart-prices', { products: '1' })))?.response).toMatchObject({ status: 404, data: { code: 'rest_no_route' } });
    // system_status reports the version the store runs.
    const status = (await api('wc/v3').get('system_status')).data as { active_plugins: Array<{ plugin: string; version: string }> };
    expect(status.active_plugins.find((p) => p.plugin.startsWith('hosted-checkout-connector/'))?.version).toBe('1.3.0');
    await control('plugin', { version: '1.4.0', active: false });
    expect((await failure(plugin().get('cart-prices', { products: '1' })))?.response).toMatchObject({ status: 404, data: { code: 'rest_no_route' } });
  });
});

// Contract test: our plugin's policies route (GET wc-hosted-checkout/v1/policies, 1.3.0, class-hosted-checkout-rest.php)
// through WooCommerce's official JS client (@woocommerce/woocommerce-rest-api) against the simulator, with the same key
// auth as /wc/v3 (OAuth 1.0a over http). The PHP itself is run by store-extensions/woocommerce/tests/RestTest.php and, on a real
// WordPress + WooCommerce, by test/real/woocommerce.test.ts.
import { describe, expect, it } from 'vitest';
import { WooCommerceRestApi } from '../../test/harness/woocommerce-official.js';
import { useStorefrontBSimulator } from '../../test/harness/simulators.js';
import { DEMO_STORE } from './simulator.js';

const b = useStorefrontBSimulator();
// The plugin's namespace is reached the same way as wc/v3 (the client only joins the strings).
const plugin = (secret: string = DEMO_STORE.consumerSecret) =>
  new WooCommerceRestApi({ url: `${b.url}/stores/demo`, consumerKey: DEMO_STORE.consumerKey, consumerSecret: secret, version: 'wc-hosted-checkout/v1' as 'wc/v3' });
const control = async (path: string, body: unknown) => {
  const res = await fetch(`${b.url}/_control/stores/demo/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(200);
};
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e) as Promise<{ response?: { status: number; data: { code: string } } } | null>;

describe('GET wc-hosted-checkout/v1/policies by the official client', () => {
  it('given a fresh store (WordPress\'s privacy page and WooCommerce\'s refund page are drafts, no terms page) / none is answered', async () => {
    const res = await plugin().get('policies');
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ policies: [] });
  });

  it('given the merchant published the privacy and refund pages and chose a terms page / all three, with their titles and permalinks', async () => {
    await control('policy-pages', {
      pages: [
        { type: 'privacy', page: { title: 'Privacy Policy', slug: 'privacy-policy', status: 'publish' } },
        { type: 'refund', page: { title: 'Refund and Returns Policy', slug: 'refund_returns', status: 'publish' } },
        { type: 'terms', page: { title: 'Terms & Conditions', slug: 'terms', status: 'publish' } },
      ],
    });

    const res = await plugin().get('policies');

    const home = `${b.url}/stores/demo`;
    expect(res.data.policies).toEqual([
      { type: 'terms', page_id: expect.any(Number), title: 'Terms & Conditions', url: `${home}/terms/` },
      { type: 'privacy', page_id: 3, title: 'Privacy Policy', url: `${home}/privacy-policy/` },
      { type: 'refund', page_id: expect.any(Number), title: 'Refund and Returns Policy', url: `${home}/refund_returns/` },
    ]);
  });

  it('given a private terms page, a trashed privacy page, a pending one chosen then none, and a published refund page / only the refund page', async () => {
    await control('policy-pages', { pages: [{ type: 'terms', page: { title: 'Terms & Conditions', status: 'private' } }, { type: 'privacy', page: { title: 'Privacy Policy', status: 'trash' } }, { type: 'refund', page: { title: 'Refunds', status: 'publish' } }] });
    expect((await plugin().get('policies')).data.policies.map((p: { type: string }) => p.type)).toEqual(['refund']);
    await control('policy-pages', { pages: [{ type: 'privacy', page: { title: 'Privacy Policy', status: 'publish' } }] });
    expect((await plugin().get('policies')).data.policies.map((p: { type: string }) => p.type)).toEqual(['privacy', 'refund']);
    await control('policy-pages', { pages: [{ type: 'privacy', page: null }] });
    expect((await plugin().get('policies')).data.policies.map((p: { type: string }) => p.type)).toEqual(['refund']);
  });

  it('given a wrong secret / 401 and nothing answered', async () => {
    expect((await failure(plugin('cs_wrong').get('policies')))?.response?.status).toBe(401);
  });

  it('given the plugin deactivated (or older than 1.3.0) / no such route: rest_no_route 404', async () => {
    await control('plugin', { active: false });
    const err = await failure(plugin().get('policies'));
    expect(err?.response).toMatchObject({ status: 404, data: { code: 'rest_no_route' } });
    await control('plugin', { active: true });
  });
});

// Contract test: WooCommerce's general settings (selling and shipping locations, from which the service takes the
// countries a store ships to) through WooCommerce's official JS client (@woocommerce/woocommerce-rest-api) against
// the simulator, as WC_REST_Setting_Options_Controller answers them: one object per option, `value` as get_option().
import { describe, expect, it } from 'vitest';
import { WooCommerceRestApi } from '../../test/harness/woocommerce-official.js';
import { useStorefrontBSimulator } from '../../test/harness/simulators.js';
import { DEMO_STORE } from './simulator.js';

const b = useStorefrontBSimulator();
const official = (secret: string = DEMO_STORE.consumerSecret) =>
  new WooCommerceRestApi({ url: `${b.url}/stores/demo`, consumerKey: DEMO_STORE.consumerKey, consumerSecret: secret, version: 'wc/v3' });
const LOCATION_OPTIONS = ['woocommerce_allowed_countries', 'woocommerce_all_except_countries', 'woocommerce_specific_allowed_countries', 'woocommerce_ship_to_countries', 'woocommerce_specific_ship_to_countries'];
const values = (data: Array<{ id: string; value: unknown }>) => Object.fromEntries(data.filter((o) => LOCATION_OPTIONS.includes(o.id)).map((o) => [o.id, o.value]));

describe('GET settings/general by the official client', () => {
  it('given a fresh store / the location options answer WooCommerce\'s defaults: sell to all, ship where it sells, lists never saved as ""', async () => {
    const res = await official().get('settings/general');
    expect(res.status).toBe(200);
    expect(values(res.data)).toEqual({
      woocommerce_allowed_countries: 'all',
      woocommerce_all_except_countries: '',
      woocommerce_specific_allowed_countries: '',
      woocommerce_ship_to_countries: '',
      woocommerce_specific_ship_to_countries: '',
    });
    const shipTo = (res.data as Array<{ id: string; type: string; options?: Record<string, string>; group_id: string }>).find((o) => o.id === 'woocommerce_ship_to_countries')!;
    expect(shipTo).toMatchObject({ type: 'select', group_id: 'general' });
    expect(Object.keys(shipTo.options!)).toEqual(['', 'all', 'specific', 'disabled']);
  });

  it('given the merchant saved specific countries / the lists answer as arrays of codes', async () => {
    const set = await fetch(`${b.url}/_control/stores/demo/general-settings`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ allowedCountries: 'all_except', allExceptCountries: ['KP'], shipToCountries: 'specific', specificShipToCountries: ['DE', 'AT'] }),
    });
    expect(set.status).toBe(200);
    const res = await official().get('settings/general');
    expect(values(res.data)).toMatchObject({ woocommerce_allowed_countries: 'all_except', woocommerce_all_except_countries: ['KP'], woocommerce_ship_to_countries: 'specific', woocommerce_specific_ship_to_countries: ['DE', 'AT'] });
    const types = Object.fromEntries((res.data as Array<{ id: string; type: string }>).map((o) => [o.id, o.type]));
    expect(types.woocommerce_specific_ship_to_countries).toBe('multiselect');
  });

  it('given a wrong secret / it answers 401 and no settings', async () => {
    const err = (await official('cs_wrong').get('settings/general').then(() => null, (e: unknown) => e)) as { response?: { status: number } } | null;
    expect(err?.response?.status).toBe(401);
  });
});

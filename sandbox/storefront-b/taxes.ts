// Taxes as WooCommerce 10.0.2 books them on an order it calculates (WC_Abstract_Order::calculate_totals(true) after a
// REST create), for the simulator: the store's tax settings, its rates (WC_Tax tables), and the arithmetic of
// WC_Tax::calc_exclusive_tax, get_tax_location, update_taxes and calculate_totals, restated here from WooCommerce's PHP
// source and compared with a running WooCommerce (test/real/woocommerce-taxes.test.ts). The simulator's products are all
// "taxable" in the standard class, and its stores' prices exclude tax.

export interface SimTaxRate {
  id: number;
  country: string;
  state: string;
  postcodes: string[];
  cities: string[];
  /** Percent with WooCommerce's four decimals, e.g. "19.0000". */
  rate: string;
  name: string;
  priority: number;
  compound: boolean;
  shipping: boolean;
  order: number;
  class: string;
}

export interface SimTaxSettings {
  /** woocommerce_calc_taxes */
  enabled: boolean;
  /** woocommerce_prices_include_tax */
  pricesIncludeTax: boolean;
  /** woocommerce_tax_based_on */
  basedOn: 'shipping' | 'billing' | 'base';
  /** woocommerce_shipping_tax_class */
  shippingTaxClass: string;
  /** woocommerce_tax_round_at_subtotal */
  roundAtSubtotal: boolean;
  /** woocommerce_default_country ("DE:BE"), woocommerce_store_postcode, woocommerce_store_city */
  baseCountry: string;
  basePostcode: string;
  baseCity: string;
  rates: SimTaxRate[];
}

export const NO_TAXES: SimTaxSettings = {
  enabled: false, pricesIncludeTax: false, basedOn: 'shipping', shippingTaxClass: 'inherit', roundAtSubtotal: false, baseCountry: 'DE', basePostcode: '', baseCity: '', rates: [],
};

/** PHP round(): half up, or half down (WC_TAX_ROUNDING_MODE when prices include tax), after PHP's pre-rounding. */
export function round(value: number, places: number, halfDown = false): number {
  const scaled = Number((value * 10 ** places).toPrecision(15));
  const whole = Math.trunc(scaled);
  const rest = Math.abs(scaled - whole);
  const away = rest > 0.5 + 1e-9 || (Math.abs(rest - 0.5) <= 1e-9 && !halfDown);
  return (whole + (away ? Math.sign(scaled) : 0)) / 10 ** places;
}

type Place = { country: string; state: string; postcode: string; city: string };

/** The rates WC_Tax::get_matched_tax_rates finds for a location (standard class), one per priority. */
function ratesFor(settings: SimTaxSettings, at: Place): SimTaxRate[] {
  if (!at.country) return [];
  const pc = at.postcode.toUpperCase().replace(/[\s-]/g, '');
  const fits = (r: SimTaxRate) =>
    r.class === 'standard'
    && (r.country === '' || r.country === at.country.toUpperCase())
    && (r.state === '' || r.state === at.state.toUpperCase())
    && (r.postcodes.length === 0 || r.postcodes.some((p) => (p.endsWith('*') ? pc.startsWith(p.slice(0, -1).toUpperCase()) : pc === p.toUpperCase())))
    && (r.cities.length === 0 || r.cities.some((c) => c.toUpperCase() === at.city.toUpperCase()));
  const ordered = settings.rates.filter(fits).sort((a, b) => a.priority - b.priority || Number(a.country === '') - Number(b.country === '') || Number(a.state === '') - Number(b.state === '') || a.id - b.id);
  const priorities = new Set<number>();
  return ordered.filter((r) => !priorities.has(r.priority) && priorities.add(r.priority));
}

/** calc_exclusive_tax on one amount: rate id → tax, 6 places; compound rates on the amount plus the taxes before them. */
function taxesOn(amount: number, rates: SimTaxRate[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const r of rates.filter((x) => !x.compound)) out.push([r.id, amount * (Number(r.rate) / 100)]);
  for (const r of rates.filter((x) => x.compound)) out.push([r.id, (amount + out.reduce((n, [, t]) => n + t, 0)) * (Number(r.rate) / 100)]);
  return out.map(([id, t]) => [id, round(t, 6)]);
}

/** One rate's line on the order (WC_Order_Item_Tax): what it took from the items and from shipping. */
export interface SimTaxLine {
  /** The order item's id (the store numbers it when it saves the order; 0 until then). */
  itemId: number;
  rate: SimTaxRate;
  taxTotal: number;
  shippingTaxTotal: number;
}

/** An order's taxes as calculate_totals(true) leaves them, in major units (WooCommerce keeps 6 places until it rounds). */
export interface SimOrderTaxes {
  /** Each line's taxes per rate (6 places), on its total and on its subtotal (before the discount). */
  lines: Array<{ total: Array<[number, number]>; subtotal: Array<[number, number]> }>;
  shipping: Array<[number, number]>;
  taxLines: SimTaxLine[];
  /** cart_tax and shipping_tax as the order keeps them: per line and rate rounded, unless taxes round at subtotal. */
  cartTax: number;
  shippingTax: number;
  /** total_tax: both, rounded to the price decimals. */
  totalTax: number;
  /** discount_tax: the tax the discount took off (subtotal taxes − total taxes, rounded). */
  discountTax: number;
  total: number;
}

/** An order before calculate_totals, or of a store that does not charge tax. */
export const UNTAXED: SimOrderTaxes = { lines: [], shipping: [], taxLines: [], cartTax: 0, shippingTax: 0, totalTax: 0, discountTax: 0, total: 0 };

/**
 * An order's taxes and total as WooCommerce calculates them (get_tax_location, calculate_taxes, update_taxes,
 * calculate_totals): each line's and the shipping line's taxes, rounded to the price decimals per line and rate unless
 * taxes round at subtotal; the line totals rounded to the cent before they are added (unless taxes round at subtotal);
 * the total and total_tax rounded to the price decimals.
 */
export function calculateOrderTaxes(settings: SimTaxSettings, input: { lines: Array<{ subtotal: number; total: number }>; shippingTotal: number; shipping: Place; billing: Place; shippingMethodId: string; decimals: number }): SimOrderTaxes {
  const dp = input.decimals;
  const cents = 10 ** dp;
  const itemsTotal = input.lines.reduce((n, l) => n + (settings.roundAtSubtotal ? l.total * cents : round(l.total * cents, 0)), 0) / cents;
  if (!settings.enabled) return { ...UNTAXED, lines: input.lines.map(() => ({ total: [], subtotal: [] })), total: round(itemsTotal + round(input.shippingTotal, dp), dp) };
  // get_tax_location: the billing address when taxes are based on it (or the order ships nowhere), the shop's base when
  // based on it, for local pickup, or when the address has no country.
  let basedOn = settings.basedOn;
  if (basedOn === 'shipping' && !input.shipping.country) basedOn = 'billing';
  if (['legacy_local_pickup', 'local_pickup'].includes(input.shippingMethodId)) basedOn = 'base';
  const address = basedOn === 'billing' ? input.billing : input.shipping;
  const [baseCountry = '', baseState = ''] = settings.baseCountry.split(':');
  const at = basedOn === 'base' || !address.country ? { country: baseCountry, state: baseState, postcode: settings.basePostcode, city: settings.baseCity } : address;
  const rates = ratesFor(settings, at);
  const halfDown = settings.pricesIncludeTax;
  const perLine = (t: number) => (settings.roundAtSubtotal ? t : round(t, dp, halfDown));
  const lines = input.lines.map((l) => ({ total: taxesOn(l.total, rates), subtotal: taxesOn(l.subtotal, rates) }));
  // Every simulated product is in the standard class, so "inherit" ships in the standard class too.
  const shippingRates = settings.shippingTaxClass === 'inherit' || settings.shippingTaxClass === '' ? rates.filter((r) => r.shipping) : [];
  const shipping = taxesOn(input.shippingTotal, shippingRates);
  const cartByRate = new Map<number, number>();
  for (const l of lines) for (const [id, t] of l.total) cartByRate.set(id, (cartByRate.get(id) ?? 0) + perLine(t));
  const shippingByRate = new Map<number, number>(shipping.map(([id, t]) => [id, perLine(t)]));
  // update_taxes: one tax line per rate, the items' rates first.
  const rateIds = [...new Set([...cartByRate.keys(), ...shippingByRate.keys()])];
  const taxLines = rateIds.map((id) => ({ itemId: 0, rate: rates.find((r) => r.id === id)!, taxTotal: cartByRate.get(id) ?? 0, shippingTaxTotal: shippingByRate.get(id) ?? 0 }));
  const sum = (xs: Iterable<number>) => [...xs].reduce((a, b) => a + b, 0);
  const cartTax = sum(cartByRate.values());
  const shippingTax = sum(shippingByRate.values());
  const taxOf = (pairs: Array<[number, number]>) => sum(pairs.map(([, t]) => t));
  return {
    lines, shipping, taxLines, cartTax, shippingTax,
    totalTax: round(cartTax + shippingTax, dp),
    discountTax: round(sum(lines.map((l) => taxOf(l.subtotal))) - sum(lines.map((l) => taxOf(l.total))), dp, halfDown),
    total: round(itemsTotal + round(input.shippingTotal, dp) + cartTax + shippingTax, dp),
  };
}

/** WC_Tax::get_rate_code: COUNTRY-STATE-NAME-PRIORITY, empty parts left out. */
export const rateCode = (r: SimTaxRate) => [r.country, r.state, r.name || 'TAX', r.priority].filter((x) => x !== '' && x !== 0).join('-').toUpperCase();

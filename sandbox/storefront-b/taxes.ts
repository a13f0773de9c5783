// Taxes as WooCommerce 10.0.2 books them on an order it calculates (WC_Abstract_Order::calculate_totals(true) after a
// REST create), for the simulator: the store's tax settings, its rates (WC_Tax tables), and the arithmetic of
// WC_Tax::calc_exclusive_tax, update_taxes and calculate_totals, restated here from WooCommerce's PHP source. The
// simulator's products are all "taxable" in the standard class.

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
function round(value: number, places: number, halfDown = false): number {
  const scaled = Number((value * 10 ** places).toPrecision(15));
  const whole = Math.trunc(scaled);
  const rest = Math.abs(scaled - whole);
  const away = rest > 0.5 + 1e-9 || (Math.abs(rest - 0.5) <= 1e-9 && !halfDown);
  return (whole + (away ? Math.sign(scaled) : 0)) / 10 ** places;
}

/** The rates WC_Tax::get_matched_tax_rates finds for a location (standard class), one per priority. */
function ratesFor(settings: SimTaxSettings, at: { country: string; state: string; postcode: string; city: string }): SimTaxRate[] {
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

/**
 * An order's taxes and total as WooCommerce calculates them: each line's and the shipping line's taxes, rounded to the
 * price decimals per line unless taxes round at subtotal, summed; the total rounded to the price decimals.
 */
export function calculateOrderTaxes(settings: SimTaxSettings, input: { lineTotals: number[]; shippingTotal: number; shipping: { country: string; state: string; postcode: string; city: string }; decimals: number }) {
  if (!settings.enabled) {
    return { lineTaxes: input.lineTotals.map(() => 0), cartTax: 0, shippingTax: 0, total: round(input.lineTotals.reduce((a, b) => a + b, 0) + input.shippingTotal, input.decimals) };
  }
  const at = settings.basedOn === 'base' || !input.shipping.country
    ? { country: settings.baseCountry.split(':')[0] ?? '', state: settings.baseCountry.split(':')[1] ?? '', postcode: settings.basePostcode, city: settings.baseCity }
    : input.shipping;
  const rates = ratesFor(settings, at);
  const perLine = (t: number) => (settings.roundAtSubtotal ? t : round(t, input.decimals, settings.pricesIncludeTax));
  const lineTaxes = input.lineTotals.map((total) => taxesOn(total, rates).reduce((n, [, t]) => n + perLine(t), 0));
  // Every simulated product is in the standard class, so "inherit" ships in the standard class too.
  const shippingRates = settings.shippingTaxClass === 'inherit' || settings.shippingTaxClass === '' ? rates.filter((r) => r.shipping) : [];
  const shippingTax = taxesOn(input.shippingTotal, shippingRates).reduce((n, [, t]) => n + perLine(t), 0);
  const cartTax = lineTaxes.reduce((a, b) => a + b, 0);
  const itemsTotal = round(input.lineTotals.reduce((a, b) => a + b, 0), input.decimals);
  return { lineTaxes, cartTax, shippingTax, total: round(itemsTotal + round(input.shippingTotal, input.decimals) + cartTax + shippingTax, input.decimals) };
}

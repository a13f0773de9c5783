// WooCommerce's taxes on an order, computed the way WooCommerce 10.0.2 computes them when the REST API creates one
// (WC_REST_Orders_Controller: save, then calculate_totals(true)), so the total charged before payment is the total
// the store books after it. Written from its source: WC_Tax::find_rates / get_matched_tax_rates (rates by country,
// state, postcode and city of the tax location, one per priority), WC_Tax::calc_exclusive_tax / calc_inclusive_tax
// (compound rates, 6-decimal rounding), WC_Order_Item_Product / _Shipping::calculate_taxes, WC_Abstract_Order::
// get_tax_location / calculate_taxes / update_taxes / calculate_totals (line taxes rounded to the price decimals unless
// taxes round at subtotal; half up, or half down when prices include tax). Pure: the client reads the settings, rates
// and products, this module does the arithmetic in the store's major units as PHP does.

/** A tax rate as GET /wc/v3/taxes answers it. */
export interface WooTaxRate {
  id: number;
  country: string;
  state: string;
  /** Postcodes the rate is limited to (wildcards `*`, ranges `a...b`); empty: any. */
  postcodes: string[];
  /** Cities the rate is limited to; empty: any. */
  cities: string[];
  /** Percent, e.g. "19.0000". */
  rate: string;
  priority: number;
  compound: boolean;
  shipping: boolean;
  /** Tax class slug; "standard" for the standard rates. */
  class: string;
}

export interface WooTaxSettings {
  /** woocommerce_calc_taxes = yes. */
  enabled: boolean;
  /** woocommerce_prices_include_tax = yes. */
  pricesIncludeTax: boolean;
  /** woocommerce_tax_based_on: shipping, billing or base. */
  basedOn: 'shipping' | 'billing' | 'base';
  /** woocommerce_shipping_tax_class: "inherit", "" (standard) or a class slug. */
  shippingTaxClass: string;
  /** woocommerce_tax_round_at_subtotal = yes. */
  roundAtSubtotal: boolean;
  /** The store's base location (woocommerce_default_country "DE:BE", woocommerce_store_postcode, _city). */
  base: TaxLocation;
  /** Tax class slugs in the store's order (GET /wc/v3/taxes/classes), "standard" first. */
  classes: string[];
  /** wc_get_price_decimals(). */
  decimals: number;
}

export interface TaxLocation {
  country: string;
  state: string;
  postcode: string;
  city: string;
}

export interface TaxableLine {
  /** The line total WooCommerce will hold (after the discount, before tax), in major units. */
  total: number;
  /** The product's tax status (taxable, shipping, none) and class slug ("" for standard). */
  taxStatus: string;
  taxClass: string;
}

/** PHP's round() with its pre-rounding of float noise, half up or half down. */
export function phpRound(value: number, precision: number, mode: 'half_up' | 'half_down' = 'half_up'): number {
  const f = 10 ** precision;
  const scaled = value * f;
  // PHP rounds the value as if it were its 15-significant-digit decimal (php_round_helper on a pre-rounded value).
  const pre = Number(scaled.toPrecision(15));
  const floor = Math.floor(Math.abs(pre));
  const frac = Math.abs(pre) - floor;
  let r: number;
  if (Math.abs(frac - 0.5) < 1e-9) r = mode === 'half_up' ? floor + 1 : floor;
  else r = Math.round(Math.abs(pre));
  return (Math.sign(pre) * r) / f;
}

const normalizePostcode = (p: string) => p.toUpperCase().replace(/[\s-]/g, '');

/** Whether a rate's postcode pattern (a code, a prefix with `*`, or a numeric range `a...b`) covers the postcode. */
function postcodeMatches(pattern: string, postcode: string): boolean {
  const code = normalizePostcode(postcode);
  const p = normalizePostcode(pattern);
  if (p.includes('...')) {
    const [lo, hi] = p.split('...');
    const n = Number(code);
    return /^\d+$/.test(code) && Number.isFinite(n) && n >= Number(lo) && n <= Number(hi);
  }
  if (p.endsWith('*')) return code.startsWith(p.slice(0, -1));
  return code === p;
}

/** WC_Tax::get_matched_tax_rates: the rates of `taxClass` for the location, the best one per priority. */
export function findRates(rates: readonly WooTaxRate[], location: TaxLocation, taxClass: string): WooTaxRate[] {
  if (!location.country) return [];
  const cls = taxClass === '' ? 'standard' : taxClass;
  const country = location.country.toUpperCase();
  const state = location.state.toUpperCase();
  const city = location.city.toUpperCase();
  const matched = rates.filter((r) => {
    if ((r.class || 'standard') !== cls) return false;
    if (r.country !== '' && r.country.toUpperCase() !== country) return false;
    if (r.state !== '' && r.state.toUpperCase() !== state) return false;
    if (r.postcodes.length && !r.postcodes.some((p) => postcodeMatches(p, location.postcode))) return false;
    if (r.cities.length && !r.cities.some((c) => c.toUpperCase() === city)) return false;
    return true;
  });
  // sort_rates_callback: priority, then a named country before "any", a named state before "any", more postcodes and
  // cities first, then id.
  matched.sort((a, b) => a.priority - b.priority
    || (a.country === b.country ? 0 : a.country === '' ? 1 : b.country === '' ? -1 : a.country.localeCompare(b.country))
    || (a.state === b.state ? 0 : a.state === '' ? 1 : b.state === '' ? -1 : a.state.localeCompare(b.state))
    || b.postcodes.length - a.postcodes.length
    || b.cities.length - a.cities.length
    || a.id - b.id);
  const seen = new Set<number>();
  return matched.filter((r) => (seen.has(r.priority) ? false : (seen.add(r.priority), true)));
}

const rateOf = (r: WooTaxRate) => Number(r.rate);
const round6 = (v: number) => phpRound(v, 6);

/** WC_Tax::calc_exclusive_tax: each rate's tax on a price without tax (compound ones on the price plus the others). */
export function calcExclusiveTax(price: number, rates: readonly WooTaxRate[]): Map<number, number> {
  const taxes = new Map<number, number>();
  for (const r of rates) if (!r.compound) taxes.set(r.id, (taxes.get(r.id) ?? 0) + price * (rateOf(r) / 100));
  let preCompound = [...taxes.values()].reduce((a, b) => a + b, 0);
  for (const r of rates) {
    if (!r.compound) continue;
    taxes.set(r.id, (taxes.get(r.id) ?? 0) + (price + preCompound) * (rateOf(r) / 100));
    preCompound = [...taxes.values()].reduce((a, b) => a + b, 0);
  }
  return new Map([...taxes].map(([k, v]) => [k, round6(v)]));
}

/** WC_Tax::calc_inclusive_tax: each rate's tax inside a price that includes it. */
export function calcInclusiveTax(price: number, rates: readonly WooTaxRate[]): Map<number, number> {
  const taxes = new Map<number, number>(rates.map((r) => [r.id, 0]));
  let nonCompound = price;
  for (const r of [...rates].filter((x) => x.compound).reverse()) {
    const amount = nonCompound - nonCompound / (1 + rateOf(r) / 100);
    taxes.set(r.id, taxes.get(r.id)! + amount);
    nonCompound -= amount;
  }
  const regular = rates.filter((x) => !x.compound);
  const regularRate = 1 + regular.reduce((n, r) => n + rateOf(r), 0) / 100;
  for (const r of regular) {
    const theRate = rateOf(r) / 100 / regularRate;
    const net = price - theRate * nonCompound;
    taxes.set(r.id, taxes.get(r.id)! + (price - net));
  }
  return new Map([...taxes].map(([k, v]) => [k, round6(v)]));
}

export interface OrderTaxes {
  /** The tax location the store uses for this order. */
  location: TaxLocation;
  /** Each line's taxes (rate id → amount, 6 decimals), in line order. */
  lineTaxes: Array<Map<number, number>>;
  shippingTaxes: Map<number, number>;
  cartTax: number;
  shippingTax: number;
  /** calculate_totals(): lines + shipping + taxes, rounded to the price decimals. */
  total: number;
}

/**
 * The taxes and total WooCommerce books for an order of these lines (totals after discount, without tax) and this
 * shipping total (without tax), shipped to `shipping` (billing is the same address: we send it so).
 */
export function orderTaxes(settings: WooTaxSettings, rates: readonly WooTaxRate[], lines: readonly TaxableLine[], shippingTotal: number, shipping: TaxLocation): OrderTaxes {
  const location = settings.basedOn === 'base' || !shipping.country ? settings.base : shipping;
  const mode = settings.pricesIncludeTax ? 'half_down' : 'half_up';
  const roundTax = (v: number) => (settings.roundAtSubtotal ? v : phpRound(v, settings.decimals, mode));
  const lineTaxes = lines.map((l) => (settings.enabled && l.taxStatus === 'taxable' ? calcExclusiveTax(l.total, findRates(rates, location, l.taxClass)) : new Map<number, number>()));
  // woocommerce_shipping_tax_class "inherit": the first of the store's classes (standard first) that an item has.
  let shippingClass: string | null = settings.shippingTaxClass;
  if (shippingClass === 'inherit') {
    const itemClasses = new Set(lines.map((l) => l.taxClass || 'standard'));
    const found = ['standard', ...settings.classes.filter((c) => c !== 'standard')].find((c) => itemClasses.has(c));
    shippingClass = found === undefined ? null : found === 'standard' ? '' : found;
  }
  const shippingTaxes = settings.enabled && shippingClass !== null
    ? calcExclusiveTax(shippingTotal, findRates(rates, location, shippingClass).filter((r) => r.shipping))
    : new Map<number, number>();
  const sumRounded = (maps: Array<Map<number, number>>) => {
    const perRate = new Map<number, number>();
    for (const m of maps) for (const [id, tax] of m) perRate.set(id, (perRate.get(id) ?? 0) + roundTax(tax));
    return [...perRate.values()].reduce((a, b) => a + b, 0);
  };
  const cartTax = sumRounded(lineTaxes);
  const shippingTax = sumRounded([shippingTaxes]);
  const itemsTotal = lines.reduce((n, l) => n + l.total, 0);
  const total = phpRound(phpRound(itemsTotal, settings.decimals) + phpRound(shippingTotal, settings.decimals) + cartTax + shippingTax, settings.decimals);
  return { location, lineTaxes, shippingTaxes, cartTax, shippingTax, total };
}

/**
 * The part of a price that includes tax which WooCommerce would count as tax (calc_inclusive_tax on the rates of the
 * location and class): what a price-includes-tax store's line must lose so the order, which holds totals without tax,
 * adds it back.
 */
export function inclusiveTaxOf(settings: WooTaxSettings, rates: readonly WooTaxRate[], price: number, taxClass: string, location: TaxLocation, forShipping = false): number {
  if (!settings.enabled) return 0;
  const found = findRates(rates, settings.basedOn === 'base' || !location.country ? settings.base : location, taxClass);
  return [...calcInclusiveTax(price, forShipping ? found.filter((r) => r.shipping) : found).values()].reduce((a, b) => a + b, 0);
}

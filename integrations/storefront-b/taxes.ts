// WooCommerce's taxes on an order, computed the way WooCommerce 10.0.2 computes them when the REST API creates one
// (WC_REST_Orders_Controller: save, then calculate_totals(true)), so the total charged before payment is the total
// the store books after it. Written from its source: WC_Tax::find_rates / get_matched_tax_rates (rates by country,
// state, postcode and city of the tax location, one per priority), WC_Tax::calc_exclusive_tax / calc_inclusive_tax
// (compound rates, 6-decimal rounding), WC_Order_Item_Product / _Shipping::calculate_taxes, WC_Abstract_Order::
// get_tax_location / calculate_taxes / update_taxes / calculate_totals (line taxes and line totals rounded to the price
// decimals unless taxes round at subtotal; taxes half up, or half down when prices include tax), wc_get_wildcard_postcodes
// / wc_postcode_location_matcher / wc_format_postcode. Pure: the client reads the settings, rates and products, this
// module does the arithmetic in the store's major units as PHP does. Each rule was checked against a running WooCommerce
// 10.0.2 in test/real/woocommerce-taxes.test.ts (docs/storefront-b.md "Taxes").

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

/** wc_normalize_postcode: upper case, without spaces and dashes. */
const normalizePostcode = (p: string) => p.trim().toUpperCase().replace(/[\s-]/g, '');

/** PHP's substr_replace($s, $insert, $at, 0): a negative position counts from the end, clamped to the string. */
function insertAt(s: string, insert: string, at: number): string {
  const i = at < 0 ? Math.max(0, s.length + at) : Math.min(at, s.length);
  return s.slice(0, i) + insert + s.slice(i);
}

/** wc_format_postcode: a normalized postcode written the way its country writes it (what wildcard rates are matched on). */
export function formatPostcode(postcode: string, country: string): string {
  let p = normalizePostcode(postcode);
  switch (country) {
    case 'SE': p = insertAt(p, ' ', -2); break;
    case 'CA': case 'GB': p = insertAt(p, ' ', -3); break;
    case 'IE': p = insertAt(p, ' ', 3); break;
    case 'BR': case 'PL': p = insertAt(p, '-', -3); break;
    case 'JP': p = insertAt(p, '-', 3); break;
    case 'PT': p = insertAt(p, '-', 4); break;
    case 'PR': case 'US': case 'MN': p = insertAt(p, '-', 5).replace(/-+$/, ''); break;
    case 'NL': p = insertAt(p, ' ', 4); break;
    case 'LV': p = p.replace(/^(LV)?-?(\d+)$/, 'LV-$2'); break;
    case 'CZ': case 'SK': p = insertAt(p.replace(new RegExp(`^(${country})-?(\\d+)$`), '$1-$2'), ' ', -2); break;
    case 'DK': p = p.replace(/^(DK)(.+)$/, '$1-$2'); break;
  }
  return p.trim();
}

/** wc_get_wildcard_postcodes: the postcode, its formatted form, and every prefix of that with `*` (the codes a rate may hold). */
function wildcardPostcodes(postcode: string, country: string): string[] {
  const formatted = formatPostcode(postcode, country);
  const list = [postcode, formatted, `${formatted}*`];
  for (let i = 0; i < formatted.length; i++) list.push(`${formatted.slice(0, formatted.length - i - 1)}*`);
  return list;
}

/** PHP's is_numeric for the strings a postcode range holds. */
const isNumeric = (s: string) => /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(s);

/** wc_make_numeric_postcode: each character as two digits (letters A=01 … Z=26), for ranges of postcodes with letters. */
function numericPostcode(p: string): string {
  return [...p.replace(/[ -]/g, '')].map((c) => (/\d/.test(c) ? c.padStart(2, '0') : /[A-Z]/.test(c) ? String(c.charCodeAt(0) - 64).padStart(2, '0') : '00')).join('');
}

/** PHP 8's `$a >= $b`-style comparison of two strings: numerically when both are numeric, else byte by byte. */
const phpCompare = (a: string, b: string) => (isNumeric(a) && isNumeric(b) ? Math.sign(Number(a) - Number(b)) : a < b ? -1 : a > b ? 1 : 0);

/** wc_postcode_location_matcher for one stored range "a...b". */
function inRange(range: string, postcode: string): boolean {
  const parts = range.split('...').map((x) => x.trim());
  if (parts.length !== 2) return false;
  let [min, max] = parts as [string, string];
  let compare = postcode;
  if (!isNumeric(min) || !isNumeric(max)) {
    compare = numericPostcode(postcode);
    min = numericPostcode(min).padEnd(compare.length, '0');
    max = numericPostcode(max).padEnd(compare.length, '0');
  }
  return phpCompare(compare, min) >= 0 && phpCompare(compare, max) <= 0;
}

/**
 * WC_Tax::get_matched_tax_rates: the rates of `taxClass` for the location, the best one per priority. A rate limited to
 * postcodes matches when one of its codes is among the location's wildcard postcodes (or a range holds it); one limited to
 * cities when the city is one of them; one limited to both needs both.
 */
export function findRates(rates: readonly WooTaxRate[], location: TaxLocation, taxClass: string): WooTaxRate[] {
  if (!location.country) return [];
  const cls = taxClass === '' ? 'standard' : taxClass;
  const country = location.country.toUpperCase();
  const state = location.state.toUpperCase();
  const city = location.city.trim().toUpperCase();
  const postcode = normalizePostcode(location.postcode);
  // MySQL compares the stored codes without regard to case.
  const candidates = new Set(wildcardPostcodes(postcode, country).map((c) => c.toUpperCase()));
  const matched: Array<{ rate: WooTaxRate; postcodeCount: number; cityCount: number }> = [];
  for (const r of rates) {
    if ((r.class || 'standard') !== cls) continue;
    if (r.country !== '' && r.country.toUpperCase() !== country) continue;
    if (r.state !== '' && r.state.toUpperCase() !== state) continue;
    const codes = r.postcodes.map((p) => p.trim().toUpperCase());
    const cities = r.cities.map((c) => c.trim().toUpperCase());
    const postcodeHits = codes.filter((p) => (p.includes('...') ? inRange(p, postcode) : candidates.has(p))).length;
    const cityHit = cities.includes(city);
    // The query's counts (COUNT over its two joins of the rate's locations), which order rates of the same priority.
    if (!codes.length && !cities.length) matched.push({ rate: r, postcodeCount: 0, cityCount: 0 });
    else if (codes.length && postcodeHits && (!cities.length || cityHit)) {
      const n = cities.length ? postcodeHits : postcodeHits * codes.length;
      matched.push({ rate: r, postcodeCount: n, cityCount: n });
    } else if (!codes.length && cityHit) matched.push({ rate: r, postcodeCount: cities.length, cityCount: cities.length });
  }
  // sort_rates_callback: priority, then a named country before "any", a named state before "any", more postcodes and
  // cities first, then id.
  const named = (a: string, b: string) => (a === b ? 0 : a === '' ? 1 : b === '' ? -1 : a < b ? -1 : 1);
  matched.sort((a, b) => a.rate.priority - b.rate.priority
    || named(a.rate.country.toUpperCase(), b.rate.country.toUpperCase())
    || named(a.rate.state.toUpperCase(), b.rate.state.toUpperCase())
    || b.postcodeCount - a.postcodeCount
    || b.cityCount - a.cityCount
    || a.rate.id - b.rate.id);
  const seen = new Set<number>();
  return matched.map((m) => m.rate).filter((r) => (seen.has(r.priority) ? false : (seen.add(r.priority), true)));
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

/** Where an order is taxed and what it ships by: what WC_Abstract_Order::get_tax_location reads from the order. */
export interface OrderPlace {
  shipping: TaxLocation;
  billing: TaxLocation;
  /** The shipping line's method_id: local pickup is taxed at the shop's base. */
  shippingMethodId: string;
}

/**
 * WC_Abstract_Order::get_tax_location: the billing address when taxes are based on it (or on the shipping address and
 * the order has none), the shop's base when based on it, for local pickup, or when the address has no country; else the
 * shipping address.
 */
export function taxLocationOf(settings: WooTaxSettings, place: OrderPlace): TaxLocation {
  let basedOn: WooTaxSettings['basedOn'] = settings.basedOn;
  if (basedOn === 'shipping' && !place.shipping.country) basedOn = 'billing';
  if (['legacy_local_pickup', 'local_pickup'].includes(place.shippingMethodId)) basedOn = 'base';
  const address = basedOn === 'billing' ? place.billing : place.shipping;
  return basedOn === 'base' || !address.country ? settings.base : address;
}

/**
 * calculate_taxes' class for the shipping line: the setting, or for "inherit" the first of the store's classes (standard
 * first) that a taxable item has; null when no item is taxable (shipping is then not taxed).
 */
export function shippingTaxClassOf(settings: WooTaxSettings, lines: ReadonlyArray<Pick<TaxableLine, 'taxStatus' | 'taxClass'>>): string | null {
  if (settings.shippingTaxClass !== 'inherit') return settings.shippingTaxClass === 'standard' ? '' : settings.shippingTaxClass;
  // get_items_tax_classes: items whose status is taxable or shipping.
  const itemClasses = new Set(lines.filter((l) => l.taxStatus === 'taxable' || l.taxStatus === 'shipping').map((l) => l.taxClass || 'standard'));
  const found = ['standard', ...settings.classes.filter((c) => c !== 'standard')].find((c) => itemClasses.has(c));
  return found === undefined ? null : found === 'standard' ? '' : found;
}

export interface OrderTaxes {
  /** The tax location the store uses for this order. */
  location: TaxLocation;
  /** Each line's taxes (rate id → amount, 6 decimals), in line order. */
  lineTaxes: Array<Map<number, number>>;
  shippingTaxes: Map<number, number>;
  /** cart_tax and shipping_tax as the order keeps them (rounded per line and rate, unless taxes round at subtotal). */
  cartTax: number;
  shippingTax: number;
  /** total_tax: cart and shipping tax, rounded to the price decimals. */
  totalTax: number;
  /** calculate_totals(): items + shipping + taxes, rounded to the price decimals. */
  total: number;
}

/**
 * The taxes and total WooCommerce books for an order of these lines (totals after discount, without tax) and this
 * shipping total (without tax), taxed where `place` says.
 */
export function orderTaxes(settings: WooTaxSettings, rates: readonly WooTaxRate[], lines: readonly TaxableLine[], shippingTotal: number, place: OrderPlace): OrderTaxes {
  const location = taxLocationOf(settings, place);
  const mode = settings.pricesIncludeTax ? 'half_down' : 'half_up';
  // update_taxes: round_line_tax / wc_round_tax_total in the tax rounding mode, unless taxes round at subtotal.
  const roundTax = (v: number) => (settings.roundAtSubtotal ? v : phpRound(v, settings.decimals, mode));
  const lineTaxes = lines.map((l) => (settings.enabled && l.taxStatus === 'taxable' ? calcExclusiveTax(l.total, findRates(rates, location, l.taxClass)) : new Map<number, number>()));
  const shippingClass = shippingTaxClassOf(settings, lines);
  // find_shipping_rates: only the rates that apply to shipping.
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
  // get_cart_total_for_order: each line total rounded to the cent (round_item_subtotal, half up) before they are added,
  // unless taxes round at subtotal; shipping lines rounded to the price decimals.
  const cents = 10 ** settings.decimals;
  const itemsTotal = lines.reduce((n, l) => n + (settings.roundAtSubtotal ? l.total * cents : phpRound(l.total * cents, 0)), 0) / cents;
  const total = phpRound(itemsTotal + phpRound(shippingTotal, settings.decimals) + cartTax + shippingTax, settings.decimals);
  return { location, lineTaxes, shippingTaxes, cartTax, shippingTax, totalTax: phpRound(cartTax + shippingTax, settings.decimals), total };
}

/**
 * The part of a price that includes tax which WooCommerce would count as tax (calc_inclusive_tax on the rates of the
 * location and class; for shipping, its rates that apply to shipping): what a price-includes-tax store's line must lose
 * so the order, which holds totals without tax, adds it back.
 */
export function inclusiveTaxOf(settings: WooTaxSettings, rates: readonly WooTaxRate[], price: number, taxClass: string, location: TaxLocation, forShipping = false): number {
  if (!settings.enabled) return 0;
  const found = findRates(rates, location, taxClass);
  return [...calcInclusiveTax(price, forShipping ? found.filter((r) => r.shipping) : found).values()].reduce((a, b) => a + b, 0);
}

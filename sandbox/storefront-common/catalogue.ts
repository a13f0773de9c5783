// The demo products both sandbox stores sell, with an SVG picture each store serves itself (no internet).
import { escapeHtml } from './html.js';

export interface CatalogueVariant {
  /** null for a product sold in one version only. */
  title: string | null;
  /** In minor units of a two-decimal currency; see priceIn. */
  price: number;
  sku: string;
}

export interface CatalogueProduct {
  handle: string;
  title: string;
  description: string;
  /** Background of the generated picture. */
  color: string;
  /** The attribute the variants differ in (e.g. "Size"), when there are several. */
  option?: string;
  variants: CatalogueVariant[];
}

export const CATALOGUE: readonly CatalogueProduct[] = [
  { handle: 'linen-tote', title: 'Linen Tote Bag', description: 'Sturdy washed-linen tote with inner pocket.', color: '#c9b79c', variants: [{ title: null, price: 2490, sku: 'TOTE-01' }] },
  {
    handle: 'ceramic-mug', title: 'Ceramic Mug', description: 'Hand-glazed stoneware mug, 350 ml.', color: '#8fa3a8', option: 'Glaze',
    variants: [{ title: 'Sand', price: 1800, sku: 'MUG-SND' }, { title: 'Slate', price: 1800, sku: 'MUG-SLT' }],
  },
  {
    handle: 'merino-beanie', title: 'Merino Beanie', description: 'Soft ribbed beanie in fine merino wool.', color: '#b5654a', option: 'Colour',
    variants: [{ title: 'Charcoal', price: 3400, sku: 'BEA-CHA' }, { title: 'Ochre', price: 3400, sku: 'BEA-OCH' }],
  },
  {
    handle: 'organic-tee', title: 'Organic Cotton Tee', description: 'Heavyweight organic cotton T-shirt.', color: '#e4e1d6', option: 'Size',
    variants: [{ title: 'S', price: 2900, sku: 'TEE-S' }, { title: 'M', price: 2900, sku: 'TEE-M' }, { title: 'L', price: 3100, sku: 'TEE-L' }],
  },
  { handle: 'notebook-set', title: 'Notebook Set', description: 'Three dot-grid notebooks, A5.', color: '#3f5e5a', variants: [{ title: null, price: 1450, sku: 'NB-3' }] },
  { handle: 'espresso-beans', title: 'Espresso Beans 250 g', description: 'Single-origin beans, roasted weekly.', color: '#5b4033', variants: [{ title: null, price: 1290, sku: 'COF-250' }] },
];

/**
 * A catalogue price in units of a store whose prices have `decimals` (each platform's own rule: Shopify's currency
 * digits, WooCommerce's woocommerce_price_num_decimals), keeping the magnitude sensible: 2490 is 24.90 with two
 * decimals, 24.900 with three and 2490 with none (e.g. JPY).
 */
export function priceIn(price: number, decimals: number): number {
  return decimals >= 2 ? price * 10 ** (decimals - 2) : price;
}

export function productSvg(product: CatalogueProduct): string {
  const initials = product.title.split(/\s+/).slice(0, 2).map((w) => w[0] ?? '').join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="480" viewBox="0 0 480 480">
<rect width="480" height="480" fill="${escapeHtml(product.color)}"/>
<circle cx="240" cy="210" r="120" fill="#ffffff" fill-opacity="0.35"/>
<text x="240" y="250" font-family="Georgia,serif" font-size="110" text-anchor="middle" fill="#ffffff">${escapeHtml(initials)}</text>
<text x="240" y="420" font-family="system-ui,sans-serif" font-size="30" text-anchor="middle" fill="#ffffff">${escapeHtml(product.title)}</text>
</svg>`;
}

// The store's own tax on a checkout, asked of the store before anything is charged: Shopify's draftOrderCalculate on the
// very draft input the order will be, WooCommerce's rules on its settings and rates (integrations/storefront-b/taxes.ts).
// Shared by the session's tax quote at init-payment / complete-cod (activities) and the checkout page's live quote (API).
import { IntegrationError, isIntegrationError } from '../../integrations/errors.js';
import { storeClientFor, type ConnectionDeps } from '../connections.js';
import { orderInputOf, STORE_SYSTEM, type OrderSession } from './store-order-input.js';
import type { Db } from '../../prisma/client.js';
import { STORE_PLATFORM_NAME } from '../../domain/platform-names.js';

export interface StoreTaxes {
  taxMinor: number;
  /** The store's prices include its tax (the tax is inside the total); else it is added to it. */
  taxesIncluded: boolean;
  /** What the shopper pays and the store books. */
  totalMinor: number;
}

const STORE_LABEL = STORE_PLATFORM_NAME;

/**
 * The store's tax on `session` as priced (its totalMinor is items + shipping − discount, before tax). A store pricing the
 * order otherwise than items + shipping − discount (+ its tax) is refused: the checkout cannot charge what the store
 * would not book.
 */
export async function quoteStoreTaxes(deps: ConnectionDeps & { db: Db }, merchantId: string, session: OrderSession): Promise<StoreTaxes> {
  const pre = session.totalMinor ?? 0;
  if (pre <= 0) return { taxMinor: 0, taxesIncluded: false, totalMinor: Math.max(0, pre) };
  const input = orderInputOf({ ...session, taxMinor: 0, taxesIncluded: false }, 'card');
  let taxed: StoreTaxes;
  try {
    taxed = session.platform === 'STOREFRONT_A'
      ? await (await storeClientFor(deps, merchantId, 'STOREFRONT_A')).calculateTaxes(input)
      : await (await storeClientFor(deps, merchantId, 'STOREFRONT_B')).calculateTaxes(input);
  } catch (err) {
    if (isIntegrationError(err) && !err.retryable) {
      throw new IntegrationError(err.system, err.kind, `${STORE_LABEL[session.platform]} could not price the tax of this order: ${err.message}`, { status: err.status, remote: err.remote, cause: err });
    }
    throw err;
  }
  const expected = pre + (taxed.taxesIncluded ? 0 : taxed.taxMinor);
  // Prices with tax: the store takes the tax out of each line and adds it back, to its own rounding.
  const slack = taxed.taxesIncluded && taxed.taxMinor > 0 ? input.lines.length + 1 : 0;
  if (Math.abs(taxed.totalMinor - expected) > slack) {
    throw new IntegrationError(STORE_SYSTEM[session.platform], 'rejected', `${STORE_LABEL[session.platform]} prices this order at ${taxed.totalMinor} (minor units), not ${expected}: the checkout cannot charge what the store would book`);
  }
  return taxed;
}

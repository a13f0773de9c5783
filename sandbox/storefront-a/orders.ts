// Draft orders and orders as the GraphQL Admin API 2026-10 documents them: draftOrderCreate prices lines
// from the catalogue unless a priceOverride is given, draftOrderComplete turns a draft into exactly one order
// (marked paid, or payment pending), and a completed draft keeps a link to its order.
import { customerId, findVariant, idOf, type MoneyLine, type SimDraftOrder, type SimOrder, type SimShop, type State } from './state.js';
import { isCurrency, toMinor } from './money.js';

export interface UserError {
  field: string[] | null;
  message: string;
}

interface MoneyInput {
  amount: string | number;
  currencyCode: string;
}
interface AttributeInput {
  key: string;
  value: string;
}
export interface DraftOrderInput {
  lineItems?: Array<{ variantId?: string | null; quantity: number; title?: string | null; priceOverride?: MoneyInput | null; originalUnitPriceWithCurrency?: MoneyInput | null; sku?: string | null; customAttributes?: AttributeInput[] | null }> | null;
  email?: string | null;
  note?: string | null;
  tags?: string[] | null;
  customAttributes?: AttributeInput[] | null;
  shippingAddress?: Record<string, unknown> | null;
  billingAddress?: Record<string, unknown> | null;
  shippingLine?: { title?: string | null; priceWithCurrency?: MoneyInput | null } | null;
  appliedDiscount?: { title?: string | null; value: number; valueType: 'FIXED_AMOUNT' | 'PERCENTAGE'; amountWithCurrency?: MoneyInput | null } | null;
  presentmentCurrencyCode?: string | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function createDraftOrder(state: State, shop: SimShop, clientId: string, input: DraftOrderInput): { draft: SimDraftOrder | null; userErrors: UserError[] } {
  const errors: UserError[] = [];
  const currency = input.presentmentCurrencyCode ?? shop.currency;
  if (!isCurrency(currency)) errors.push({ field: ['presentmentCurrencyCode'], message: 'Presentment currency code is invalid' });
  const money = (m: MoneyInput, field: string[]): number => {
    if (m.currencyCode !== currency) {
      errors.push({ field, message: `Currency ${m.currencyCode} does not match the draft order currency ${currency}` });
      return 0;
    }
    const minor = toMinor(m.amount, currency);
    if (minor === null || minor < 0) {
      errors.push({ field, message: 'Amount is invalid' });
      return 0;
    }
    return minor;
  };
  const items = input.lineItems ?? [];
  if (items.length === 0) errors.push({ field: ['lineItems'], message: 'Add at least 1 product' });
  const lines: MoneyLine[] = items.map((item, i) => {
    const field = ['lineItems', String(i)];
    const variantId = item.variantId == null ? null : idOf('ProductVariant', item.variantId);
    const found = variantId === null ? undefined : findVariant(shop, variantId);
    if (item.variantId != null && !found) errors.push({ field: [...field, 'variantId'], message: 'Product variant does not exist' });
    if (!Number.isInteger(item.quantity) || item.quantity < 1) errors.push({ field: [...field, 'quantity'], message: 'Quantity must be greater than or equal to 1' });
    const custom = item.originalUnitPriceWithCurrency ?? null;
    if (!found && (!item.title || !custom)) errors.push({ field, message: 'Custom line items need a title and an originalUnitPriceWithCurrency' });
    // Shopify prices from the catalogue (shop currency) unless the line's price is overridden.
    const catalogue = found && currency === shop.currency ? found.variant.price : null;
    const override = item.priceOverride ? money(item.priceOverride, [...field, 'priceOverride']) : custom ? money(custom, [...field, 'originalUnitPriceWithCurrency']) : null;
    if (override === null && catalogue === null && found) errors.push({ field: [...field, 'priceOverride'], message: `A price in ${currency} is required for this line` });
    return {
      title: found?.product.title ?? item.title ?? '',
      variantId: found?.variant.id ?? null,
      productId: found?.product.id ?? null,
      sku: item.sku ?? found?.variant.sku ?? null,
      variantTitle: found?.variant.title ?? null,
      quantity: item.quantity,
      unitPrice: override ?? catalogue ?? 0,
      customAttributes: item.customAttributes ?? [],
    };
  });
  if (input.email != null && !EMAIL.test(input.email)) errors.push({ field: ['email'], message: 'Email is invalid' });
  const shipping = input.shippingLine ? { title: input.shippingLine.title ?? 'Shipping', price: input.shippingLine.priceWithCurrency ? money(input.shippingLine.priceWithCurrency, ['shippingLine', 'priceWithCurrency']) : 0 } : null;
  const d = input.appliedDiscount;
  const subtotal = lines.reduce((n, l) => n + l.unitPrice * l.quantity, 0);
  const discount = d
    ? { title: d.title ?? 'Discount', amount: d.valueType === 'PERCENTAGE' ? Math.round((subtotal * d.value) / 100) : d.amountWithCurrency ? money(d.amountWithCurrency, ['appliedDiscount', 'amountWithCurrency']) : (toMinor(d.value, currency) ?? 0) }
    : null;
  for (const [key, address] of [['shippingAddress', input.shippingAddress], ['billingAddress', input.billingAddress]] as const) {
    if (address && typeof address.countryCode === 'string' && !/^[A-Z]{2}$/.test(address.countryCode)) errors.push({ field: [key, 'countryCode'], message: 'Country code is invalid' });
  }
  if (errors.length) return { draft: null, userErrors: errors };
  const draft: SimDraftOrder = {
    id: state.nextId(),
    clientId,
    name: `#D${shop.nextDraftNumber++}`,
    status: 'OPEN',
    currency,
    email: input.email ?? null,
    note: input.note ?? null,
    tags: [...new Set((input.tags ?? []).map((t) => t.trim()).filter(Boolean))],
    customAttributes: input.customAttributes ?? [],
    lines,
    shipping,
    discount,
    shippingAddress: input.shippingAddress ?? null,
    billingAddress: input.billingAddress ?? input.shippingAddress ?? null,
    orderId: null,
    createdAt: new Date().toISOString(),
    completedAt: null,
  };
  shop.draftOrders.set(draft.id, draft);
  return { draft, userErrors: [] };
}

export const draftTotals = (d: Pick<SimDraftOrder, 'lines' | 'shipping' | 'discount'>) => {
  const subtotal = d.lines.reduce((n, l) => n + l.unitPrice * l.quantity, 0);
  return { subtotal, total: subtotal + (d.shipping?.price ?? 0) - (d.discount?.amount ?? 0) };
};

/** Completes an OPEN draft into its one order; a completed draft answers a user error and creates nothing. */
export function completeDraftOrder(state: State, shop: SimShop, draft: SimDraftOrder, opts: { paymentPending: boolean }): UserError[] {
  if (draft.status === 'COMPLETED') return [{ field: ['id'], message: 'This order has already been paid.' }];
  const { subtotal, total } = draftTotals(draft);
  const now = new Date().toISOString();
  const order: SimOrder = {
    id: state.nextId(),
    name: `#${shop.nextOrderNumber++}`,
    clientId: draft.clientId,
    draftOrderId: draft.id,
    email: draft.email,
    currency: draft.currency,
    financialStatus: opts.paymentPending ? 'PENDING' : 'PAID',
    lines: draft.lines,
    shipping: draft.shipping,
    discount: draft.discount,
    shippingAddress: draft.shippingAddress,
    subtotal,
    total,
    tags: draft.tags,
    customAttributes: draft.customAttributes,
    note: draft.note,
    createdAt: now,
  };
  if (draft.email) customerId(state, shop, draft.email);
  shop.orders.set(order.id, order);
  draft.status = 'COMPLETED';
  draft.orderId = order.id;
  draft.completedAt = now;
  return [];
}

/** The merchant's "Mark as paid" in the admin. */
export function markOrderPaid(order: SimOrder): void {
  order.financialStatus = 'PAID';
}

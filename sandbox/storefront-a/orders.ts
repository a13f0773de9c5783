// Draft orders and orders as the GraphQL Admin API 2026-10 documents them: draftOrderCreate prices lines
// from the catalogue unless a priceOverride is given, draftOrderComplete turns a draft into exactly one order
// (marked paid, or payment pending when the draft has payment terms), and a completed draft keeps a link to its order.
import { customerId, findVariant, idOf, PAYMENT_TERMS_TEMPLATES, type MoneyLine, type SimDraftOrder, type SimOrder, type SimRefund, type SimShop, type State } from './state.js';
import { isCurrency, toDecimal, toMinor } from './money.js';

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
  paymentTerms?: { paymentTermsTemplateId?: string | null; paymentSchedules?: Array<{ issuedAt?: string | null; dueAt?: string | null }> | null } | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** draftOrderCalculate: the draft Shopify would make of `input`, priced and taxed, without saving anything. */
export function calculateDraftOrder(state: State, shop: SimShop, clientId: string, input: DraftOrderInput): { draft: SimDraftOrder | null; userErrors: UserError[] } {
  const number = shop.nextDraftNumber;
  const made = createDraftOrder(state, shop, clientId, input);
  if (made.draft) shop.draftOrders.delete(made.draft.id);
  shop.nextDraftNumber = number;
  return made;
}

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
  // PaymentTermsInput: a template, and the schedule's issuedAt for NET terms, dueAt for FIXED ones (PaymentScheduleInput).
  let paymentTerms: SimDraftOrder['paymentTerms'] = null;
  if (input.paymentTerms) {
    const templateId = idOf('PaymentTermsTemplate', input.paymentTerms.paymentTermsTemplateId);
    const template = PAYMENT_TERMS_TEMPLATES.find((t) => t.id === templateId);
    const schedule = input.paymentTerms.paymentSchedules?.[0];
    if (!template) errors.push({ field: ['paymentTerms', 'paymentTermsTemplateId'], message: 'Payment terms template does not exist' });
    else if (template.type === 'NET' && !schedule?.issuedAt) errors.push({ field: ['paymentTerms', 'paymentSchedules'], message: 'Issued at is required for net payment terms' });
    else if (template.type === 'FIXED' && !schedule?.dueAt) errors.push({ field: ['paymentTerms', 'paymentSchedules'], message: 'Due at is required for fixed payment terms' });
    else paymentTerms = { templateId: template.id, type: template.type };
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
    notReadyReads: 0,
    completing: false,
    paymentTerms,
  };
  shop.draftOrders.set(draft.id, draft);
  return { draft, userErrors: [] };
}

/**
 * A draft's money with the shop's taxes: the tax of the shipping country's rate on the discounted merchandise (and on
 * shipping when the shop taxes it), inside the prices when they include tax, else added to the total. The same rule
 * for draftOrderCalculate, draftOrderCreate and the completed order, so what Shopify quotes is what it books.
 */
export const draftTotals = (shop: Pick<SimShop, 'taxes'>, d: Pick<SimDraftOrder, 'lines' | 'shipping' | 'discount' | 'shippingAddress'>) => {
  const subtotal = d.lines.reduce((n, l) => n + l.unitPrice * l.quantity, 0);
  const shipping = d.shipping?.price ?? 0;
  const beforeTax = subtotal + shipping - (d.discount?.amount ?? 0);
  const country = typeof d.shippingAddress?.countryCode === 'string' ? d.shippingAddress.countryCode : '';
  const rate = (shop.taxes.rates[country] ?? 0) / 100;
  const base = Math.max(0, subtotal - (d.discount?.amount ?? 0)) + (shop.taxes.shipping ? shipping : 0);
  const tax = rate === 0 ? 0 : Math.round(shop.taxes.included ? base - base / (1 + rate) : base * rate);
  return { subtotal, shipping, tax, taxesIncluded: shop.taxes.included, total: shop.taxes.included ? beforeTax : beforeTax + tax };
};

/**
 * Why a draft cannot be completed now, as user errors (none: it can). Shopify documents that a draft "might have
 * asynchronous operations that can take time to finish" (DraftOrder.ready) but not what completing one then answers,
 * nor what a second completion answers while the first commits: both are our model — a user error, nothing created.
 */
export function completionRefusal(draft: SimDraftOrder): UserError[] {
  if (draft.status === 'COMPLETED') return [{ field: ['id'], message: 'This order has already been paid.' }];
  if (draft.completing) return [{ field: ['id'], message: 'This draft order is already being completed.' }];
  if (draft.notReadyReads > 0) return [{ field: ['id'], message: 'This draft order is not ready to be completed. Try again later.' }];
  return [];
}

/**
 * Completes an OPEN draft into its one order: paid (a manual sale of the total), or payment pending when the draft
 * has payment terms (or the deprecated paymentPending is sent). A draft that cannot be completed creates nothing.
 */
export function completeDraftOrder(state: State, shop: SimShop, draft: SimDraftOrder, opts: { paymentPending: boolean }): UserError[] {
  const refused = completionRefusal(draft);
  if (refused.length) return refused;
  const pending = opts.paymentPending || draft.paymentTerms !== null;
  const { subtotal, total, tax, taxesIncluded } = draftTotals(shop, draft);
  const now = new Date().toISOString();
  const order: SimOrder = {
    id: state.nextId(),
    name: `#${shop.nextOrderNumber++}`,
    clientId: draft.clientId,
    draftOrderId: draft.id,
    email: draft.email,
    currency: draft.currency,
    financialStatus: pending ? 'PENDING' : 'PAID',
    lineIds: draft.lines.map(() => state.nextId()),
    // Completed as paid, Shopify books the total as a successful manual sale; payment pending, no transaction yet.
    transactions: pending ? [] : [{ id: state.nextId(), kind: 'SALE', status: 'SUCCESS', gateway: 'manual', amount: total, parentId: null, createdAt: now }],
    refunds: [],
    lines: draft.lines,
    shipping: draft.shipping,
    discount: draft.discount,
    shippingAddress: draft.shippingAddress,
    billingAddress: draft.billingAddress,
    subtotal,
    total,
    tax,
    taxesIncluded,
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

/** The merchant's "Mark as paid" in the admin: a manual sale of the total. */
export function markOrderPaid(state: State, order: SimOrder): void {
  if (order.financialStatus !== 'PENDING') return;
  order.financialStatus = 'PAID';
  order.transactions.push({ id: state.nextId(), kind: 'SALE', status: 'SUCCESS', gateway: 'manual', amount: order.total, parentId: null, createdAt: new Date().toISOString() });
}

export interface RefundInput {
  orderId: string;
  note?: string | null;
  notify?: boolean | null;
  currency?: string | null;
  refundLineItems?: Array<{ lineItemId: string; quantity: number; restockType?: 'CANCEL' | 'LEGACY_RESTOCK' | 'NO_RESTOCK' | 'RETURN' | null; locationId?: string | null }> | null;
  shipping?: { amount?: string | number | null; fullRefund?: boolean | null } | null;
  transactions?: Array<{ amount: string | number; gateway: string; kind: string; orderId: string; parentId?: string | null }> | null;
}

/** What an order's sales took in and its refunds gave back (minor units). */
export const orderMoney = (o: SimOrder) => {
  const sold = o.transactions.filter((t) => t.kind === 'SALE' && t.status === 'SUCCESS').reduce((n, t) => n + t.amount, 0);
  const refunded = o.transactions.filter((t) => t.kind === 'REFUND' && t.status === 'SUCCESS').reduce((n, t) => n + t.amount, 0);
  return { sold, refunded };
};

/**
 * refundCreate as the 2026-10 reference describes it: refundLineItems say which lines (and how many) are given back
 * and whether they are restocked; transactions say the money (kind REFUND, against a SALE of the order, on its
 * gateway, at most what is left of it). The financial status follows: PARTIALLY_REFUNDED, then REFUNDED.
 */
export function createRefund(state: State, order: SimOrder, input: RefundInput): { refund: SimRefund | null; userErrors: UserError[] } {
  const errors: UserError[] = [];
  const lines = (input.refundLineItems ?? []).map((l, i) => {
    const lineItemId = idOf('LineItem', l.lineItemId);
    const lineIndex = lineItemId === null ? -1 : order.lineIds.indexOf(lineItemId);
    if (lineIndex < 0) errors.push({ field: ['refundLineItems', String(i), 'lineItemId'], message: 'Line item does not exist' });
    const already = order.refunds.flatMap((r) => r.lines).filter((x) => x.lineIndex === lineIndex).reduce((n, x) => n + x.quantity, 0);
    const max = lineIndex < 0 ? 0 : order.lines[lineIndex]!.quantity - already;
    if (!Number.isInteger(l.quantity) || l.quantity < 1 || l.quantity > max) errors.push({ field: ['refundLineItems', String(i), 'quantity'], message: `Quantity cannot refund more items than were purchased (${max} left)` });
    return { lineIndex, quantity: l.quantity, restockType: l.restockType ?? 'NO_RESTOCK' };
  });
  let { refunded } = orderMoney(order);
  const { sold } = orderMoney(order);
  const money = (input.transactions ?? []).map((t, i) => {
    const field = ['transactions', String(i)];
    const amount = toMinor(t.amount, order.currency);
    const parentId = t.parentId == null ? null : idOf('OrderTransaction', t.parentId);
    const parent = order.transactions.find((x) => x.id === parentId);
    if (idOf('Order', t.orderId) !== order.id) errors.push({ field: [...field, 'orderId'], message: 'Order does not match the refund order' });
    if (t.kind !== 'REFUND') errors.push({ field: [...field, 'kind'], message: 'Kind is invalid' });
    if (!parent || parent.kind !== 'SALE') errors.push({ field: [...field, 'parentId'], message: 'Parent transaction does not exist' });
    else if (parent.gateway !== t.gateway) errors.push({ field: [...field, 'gateway'], message: `Gateway must be ${parent.gateway}` });
    if (amount === null || amount <= 0) errors.push({ field: [...field, 'amount'], message: 'Amount must be greater than 0' });
    else if (refunded + amount > sold) errors.push({ field: [...field, 'amount'], message: `Amount cannot be greater than the refundable amount of ${toDecimal(sold - refunded, order.currency)}` });
    else refunded += amount;
    return { amount: amount ?? 0, gateway: t.gateway, parentId };
  });
  if (lines.length === 0 && money.length === 0 && !input.shipping) errors.push({ field: null, message: 'A refund needs line items, shipping or transactions' });
  if (errors.length) return { refund: null, userErrors: errors };
  const now = new Date().toISOString();
  const transactions = money.map((m) => ({ id: state.nextId(), kind: 'REFUND' as const, status: 'SUCCESS' as const, gateway: m.gateway, amount: m.amount, parentId: m.parentId, createdAt: now }));
  order.transactions.push(...transactions);
  const refund: SimRefund = { id: state.nextId(), note: input.note ?? null, createdAt: now, amount: transactions.reduce((n, t) => n + t.amount, 0), transactionIds: transactions.map((t) => t.id), lines };
  order.refunds.push(refund);
  const after = orderMoney(order);
  if (after.refunded > 0) order.financialStatus = after.refunded >= after.sold ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
  return { refund, userErrors: [] };
}

// Order creation as the platform validates it: the body in the platform's shape, prices as decimal strings
// in the order currency, totals that must add up, and a paid order's transactions covering its total.
import { z } from 'zod';
import { decimalToMinor, isCurrencyCode, minorToDecimal } from '../../integrations/storefront-common/money.js';
import { PlatformError } from '../storefront-common/web.js';
import { customerId, findVariant, type SimOrder, type SimShop, type State } from './state.js';

const decimal = z.union([z.string(), z.number()]).transform(String);
const address = z
  .object({
    first_name: z.string().nullish(),
    last_name: z.string().nullish(),
    address1: z.string().min(1),
    address2: z.string().nullish(),
    city: z.string().min(1),
    zip: z.string().nullish(),
    province: z.string().nullish(),
    country_code: z.string().regex(/^[A-Z]{2}$/),
    phone: z.string().nullish(),
  })
  .loose();

const orderBodySchema = z.object({
  email: z.email().optional(),
  currency: z.string().optional(),
  financial_status: z.enum(['pending', 'authorized', 'paid']).default('pending'),
  line_items: z
    .array(
      z.object({
        variant_id: z.number().int().nullish(),
        product_id: z.number().int().nullish(),
        title: z.string().min(1).optional(),
        variant_title: z.string().nullish(),
        sku: z.string().nullish(),
        quantity: z.number().int().min(1),
        price: decimal.optional(),
      }),
    )
    .min(1),
  shipping_lines: z.array(z.object({ title: z.string().min(1), code: z.string().nullish(), price: decimal })).default([]),
  discount_codes: z.array(z.object({ code: z.string().min(1), amount: decimal, type: z.literal('fixed_amount').default('fixed_amount') })).default([]),
  shipping_address: address.optional(),
  billing_address: address.optional(),
  transactions: z
    .array(
      z.object({
        kind: z.enum(['sale', 'authorization', 'capture']),
        status: z.enum(['success', 'pending', 'failure']).default('success'),
        amount: decimal,
        gateway: z.string().min(1).default('manual'),
        authorization: z.string().nullish(),
      }),
    )
    .default([]),
  subtotal_price: decimal.optional(),
  total_discounts: decimal.optional(),
  total_price: decimal.optional(),
  tags: z.union([z.string(), z.array(z.string())]).optional(),
  note_attributes: z.array(z.object({ name: z.string().min(1), value: z.union([z.string(), z.number()]).transform(String) })).default([]),
  note: z.string().nullish(),
  send_receipt: z.boolean().optional(),
});

/** The platform answers invalid orders with 422 and `{ errors: { field: [messages] } }`. */
function unprocessable(errors: Record<string, string[]>): never {
  throw new PlatformError(422, { errors });
}

export const splitTags = (tags: string | string[] | undefined) =>
  (Array.isArray(tags) ? tags : (tags ?? '').split(',')).map((t) => t.trim()).filter(Boolean);

export function createOrder(state: State, shop: SimShop, clientId: string, body: unknown): SimOrder {
  if (!body || typeof body !== 'object' || !('order' in body)) throw new PlatformError(400, { errors: { order: 'Required parameter missing or invalid' } });
  const parsed = orderBodySchema.safeParse(body.order);
  if (!parsed.success) {
    const errors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) (errors[issue.path.join('.') || 'order'] ??= []).push(issue.message);
    unprocessable(errors);
  }
  const o = parsed.data;
  const currency = o.currency ?? shop.currency;
  if (!isCurrencyCode(currency)) unprocessable({ currency: ['is not a valid ISO 4217 currency'] });
  const amount = (value: string, field: string) => {
    try {
      const minor = decimalToMinor(value, currency);
      if (minor < 0) unprocessable({ [field]: ['must be greater than or equal to 0'] });
      return minor;
    } catch (err) {
      if (err instanceof PlatformError) throw err;
      return unprocessable({ [field]: [`is invalid for ${currency}: ${(err as Error).message}`] });
    }
  };

  const lines = o.line_items.map((l, i) => {
    const found = l.variant_id == null ? undefined : findVariant(shop, l.variant_id);
    if (l.variant_id != null && !found) unprocessable({ [`line_items.${i}.variant_id`]: [`variant ${l.variant_id} does not exist`] });
    const title = l.title ?? found?.product.title;
    if (!title) unprocessable({ [`line_items.${i}.title`]: ["can't be blank without a variant_id"] });
    // A variant's own price is in the shop currency; an order in another currency must state its prices.
    if (l.price === undefined && (!found || currency !== shop.currency)) unprocessable({ [`line_items.${i}.price`]: ["can't be blank"] });
    return {
      id: state.nextId(),
      variantId: found?.variant.id ?? null,
      productId: found?.product.id ?? l.product_id ?? null,
      title,
      variantTitle: l.variant_title ?? found?.variant.title ?? null,
      sku: l.sku ?? found?.variant.sku ?? null,
      quantity: l.quantity,
      price: l.price === undefined ? found!.variant.price : amount(l.price, `line_items.${i}.price`),
    };
  });
  const shippingLines = o.shipping_lines.map((s, i) => ({ id: state.nextId(), title: s.title, code: s.code ?? s.title, price: amount(s.price, `shipping_lines.${i}.price`) }));
  const discountCodes = o.discount_codes.map((d, i) => ({ code: d.code, type: d.type, amount: amount(d.amount, `discount_codes.${i}.amount`) }));

  const subtotal = lines.reduce((n, l) => n + l.price * l.quantity, 0);
  const totalShipping = shippingLines.reduce((n, s) => n + s.price, 0);
  const totalDiscounts = discountCodes.reduce((n, d) => n + d.amount, 0);
  const total = subtotal + totalShipping - totalDiscounts;
  if (total < 0) unprocessable({ discount_codes: ['exceed the order amount'] });
  // Totals a caller states must be the ones the platform computes: a mismatch is a bug on the caller's side.
  for (const [field, stated, computed] of [['subtotal_price', o.subtotal_price, subtotal], ['total_discounts', o.total_discounts, totalDiscounts], ['total_price', o.total_price, total]] as const) {
    if (stated !== undefined && amount(stated, field) !== computed) unprocessable({ [field]: [`is ${stated}, but the order adds up to ${minorToDecimal(computed, currency)}`] });
  }

  const now = new Date().toISOString();
  const transactions = o.transactions.map((t, i) => ({
    id: state.nextId(), kind: t.kind, status: t.status, amount: amount(t.amount, `transactions.${i}.amount`), gateway: t.gateway, authorization: t.authorization ?? null, createdAt: now,
  }));
  if (o.financial_status === 'paid') {
    if (transactions.length === 0) transactions.push({ id: state.nextId(), kind: 'sale', status: 'success', amount: total, gateway: 'manual', authorization: null, createdAt: now });
    const captured = transactions.filter((t) => t.status === 'success' && t.kind !== 'authorization').reduce((n, t) => n + t.amount, 0);
    if (captured !== total) unprocessable({ transactions: [`successful amounts add up to ${minorToDecimal(captured, currency)}, a paid order needs ${minorToDecimal(total, currency)}`] });
  }

  const order: SimOrder = {
    id: state.nextId(),
    number: shop.nextOrderNumber++,
    clientId,
    email: o.email ?? null,
    customerId: o.email ? customerId(state, shop, o.email) : null,
    currency,
    financialStatus: o.financial_status,
    gateway: transactions[0]?.gateway ?? 'manual',
    lines,
    shippingLines,
    discountCodes,
    shippingAddress: o.shipping_address ?? null,
    billingAddress: o.billing_address ?? o.shipping_address ?? null,
    transactions,
    subtotal,
    totalShipping,
    totalDiscounts,
    total,
    tags: splitTags(o.tags),
    noteAttributes: o.note_attributes,
    createdAt: now,
    updatedAt: now,
  };
  shop.orders.set(order.id, order);
  return order;
}

/** What the merchant's "Mark as paid" does: a manual successful sale for the whole amount. */
export function markOrderPaid(state: State, order: SimOrder): void {
  if (order.financialStatus === 'paid') return;
  const now = new Date().toISOString();
  order.transactions.push({ id: state.nextId(), kind: 'sale', status: 'success', amount: order.total, gateway: 'manual', authorization: null, createdAt: now });
  order.financialStatus = 'paid';
  order.updatedAt = now;
}

export function serializeOrder(shop: SimShop, o: SimOrder) {
  const money = (minor: number) => minorToDecimal(minor, o.currency);
  const address = (a: Record<string, unknown> | null) => a && { ...a, name: [a.first_name, a.last_name].filter(Boolean).join(' ') };
  return {
    id: o.id,
    admin_graphql_api_id: `gid://storefront-a/Order/${o.id}`,
    name: `#${o.number}`,
    order_number: o.number,
    email: o.email,
    created_at: o.createdAt,
    updated_at: o.updatedAt,
    processed_at: o.createdAt,
    currency: o.currency,
    presentment_currency: o.currency,
    financial_status: o.financialStatus,
    fulfillment_status: null,
    gateway: o.gateway,
    payment_gateway_names: [...new Set(o.transactions.map((t) => t.gateway))],
    subtotal_price: money(o.subtotal),
    total_shipping_price_set: { shop_money: { amount: money(o.totalShipping), currency_code: o.currency } },
    total_discounts: money(o.totalDiscounts),
    total_tax: money(0),
    total_price: money(o.total),
    tags: o.tags.join(', '),
    note_attributes: o.noteAttributes,
    customer: o.customerId === null ? null : { id: o.customerId, email: o.email },
    line_items: o.lines.map((l) => ({ id: l.id, variant_id: l.variantId, product_id: l.productId, title: l.title, variant_title: l.variantTitle, sku: l.sku, quantity: l.quantity, price: money(l.price) })),
    shipping_lines: o.shippingLines.map((s) => ({ id: s.id, title: s.title, code: s.code, price: money(s.price) })),
    discount_codes: o.discountCodes.map((d) => ({ code: d.code, type: d.type, amount: money(d.amount) })),
    shipping_address: address(o.shippingAddress),
    billing_address: address(o.billingAddress),
    order_status_url: `https://${shop.host}/orders/${o.id}/status`,
  };
}

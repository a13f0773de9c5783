// Webhooks Shopify posts to apps (shopify.dev/docs/apps/build/webhooks/delivery-structure): the raw JSON body
// with X-Shopify-Topic, X-Shopify-Hmac-Sha256 (base64 HMAC-SHA256 of the body with the app's client secret),
// X-Shopify-Shop-Domain, X-Shopify-API-Version, X-Shopify-Webhook-Id, X-Shopify-Triggered-At, X-Shopify-Event-Id.
// A retry (shopify.dev/changelog/updates-to-webhook-retry-mechanism; …/webhooks/ignore-duplicates) carries the
// original payload, X-Shopify-Triggered-At and X-Shopify-Event-Id of the event, under a new X-Shopify-Webhook-Id.
import { createHmac, randomUUID } from 'node:crypto';
import { describeFetchError, PlatformError } from '../storefront-common/web.js';
import { customerId, primaryDomainOf, type SimShop, type State } from './state.js';
import { toRestDecimal } from './money.js';

export const WEBHOOK_TOPICS = [
  'app/uninstalled', 'customers/data_request', 'customers/redact', 'shop/redact',
  'shop/update', 'domains/create', 'domains/update', 'domains/destroy', 'themes/publish', 'refunds/create',
] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];
/** Compliance topics exist only in app configuration (shopify.app.toml), never as API subscriptions. */
const COMPLIANCE: ReadonlySet<string> = new Set(['customers/data_request', 'customers/redact', 'shop/redact']);
/** The webhooks API version of the app configuration. */
export const WEBHOOKS_API_VERSION = '2026-10';

export interface WebhookDelivery {
  id: string;
  topic: WebhookTopic;
  shop: string;
  clientId: string;
  address: string | null;
  /** The receiver's HTTP status, or null when it could not be reached. */
  status: number | null;
  ok: boolean;
  error?: string;
  body: string;
  headers: Record<string, string>;
  sentAt: string;
}

/** Uninstalling removes the app's install, every token it held for the shop, its script tags and subscriptions. */
export function uninstall(state: State, shop: SimShop, clientId: string): void {
  shop.installs.delete(clientId);
  for (const [token, grant] of state.tokens) if (grant.shop === shop.host && grant.clientId === clientId) state.tokens.delete(token);
  for (const [token, grant] of state.storefrontTokens) if (grant.shop === shop.host && grant.clientId === clientId) state.storefrontTokens.delete(token);
  for (const [id, tag] of shop.scriptTags) if (tag.clientId === clientId) shop.scriptTags.delete(id);
  shop.webhookSubscriptions = shop.webhookSubscriptions.filter((s) => s.clientId !== clientId);
}

/** The REST Shop resource, as app/uninstalled and shop/update carry it. */
export function restShop(shop: SimShop) {
  return {
    id: shop.id,
    name: shop.name,
    email: shop.email,
    domain: primaryDomainOf(shop).host,
    country_code: shop.country,
    currency: shop.currency,
    myshopify_domain: shop.host,
    plan_name: 'basic',
    plan_display_name: 'Basic',
    created_at: '2026-01-10T09:00:00-05:00',
    iana_timezone: 'Europe/Berlin',
    primary_locale: 'en',
    password_enabled: false,
    has_storefront: true,
    enabled_presentment_currencies: [shop.currency],
  };
}

/**
 * The REST Refund resource refunds/create carries (shopify.dev/docs/api/webhooks?reference=toml#list-topics-refunds/create,
 * admin-rest 2026-10 Refund): money as decimal strings in the order's currency, transactions of kind "refund".
 */
export function restRefund(shop: SimShop, orderId: number, refundId: number) {
  const order = shop.orders.get(orderId);
  const refund = order?.refunds.find((r) => r.id === refundId);
  if (!order || !refund) throw new PlatformError(404, { error: `no refund ${refundId} of order ${orderId}`, code: 'NOT_FOUND' });
  const money = (minor: number) => toRestDecimal(minor, order.currency);
  return {
    id: refund.id, order_id: order.id, created_at: refund.createdAt, processed_at: refund.createdAt, note: refund.note, user_id: null,
    restock: refund.lines.some((l) => l.restockType !== 'NO_RESTOCK'), duties: [], order_adjustments: [], return: null,
    admin_graphql_api_id: `gid://shopify/Refund/${refund.id}`,
    refund_line_items: refund.lines.map((l, i) => {
      const line = order.lines[l.lineIndex]!;
      return {
        id: refund.id * 100 + i, line_item_id: order.lineIds[l.lineIndex], quantity: l.quantity, restock_type: l.restockType.toLowerCase(), location_id: null,
        subtotal: money(line.unitPrice * l.quantity), total_tax: money(0),
        subtotal_set: { shop_money: { amount: money(line.unitPrice * l.quantity), currency_code: order.currency }, presentment_money: { amount: money(line.unitPrice * l.quantity), currency_code: order.currency } },
      };
    }),
    transactions: order.transactions.filter((t) => refund.transactionIds.includes(t.id)).map((t) => ({
      id: t.id, order_id: order.id, kind: 'refund', gateway: t.gateway, status: 'success', amount: money(t.amount), currency: order.currency,
      parent_id: t.parentId, created_at: t.createdAt, processed_at: t.createdAt, test: false, admin_graphql_api_id: `gid://shopify/OrderTransaction/${t.id}`,
    })),
  };
}

function payloadFor(state: State, shop: SimShop, topic: WebhookTopic, customerEmail: string | undefined, subject?: { orderId: number; refundId: number }): unknown {
  if (topic === 'refunds/create') {
    if (!subject) throw new PlatformError(400, { error: 'refunds/create needs the order and refund it is about', code: 'INVALID_INPUT' });
    return restRefund(shop, subject.orderId, subject.refundId);
  }
  if (topic === 'app/uninstalled' || topic === 'shop/update') return restShop(shop);
  if (topic === 'shop/redact') return { shop_id: shop.id, shop_domain: shop.host };
  if (topic.startsWith('domains/')) {
    const d = primaryDomainOf(shop);
    return { id: d.id, host: d.host, ssl_enabled: true, localization: null };
  }
  if (topic === 'themes/publish') {
    const t = shop.themes.find((x) => x.role === 'MAIN')!;
    return { id: t.id, name: t.name, role: 'main', theme_store_id: null, previewable: true, processing: false, admin_graphql_api_id: `gid://shopify/OnlineStoreTheme/${t.id}` };
  }
  const orders = [...shop.orders.values()];
  const email = customerEmail ?? orders[0]?.email ?? 'shopper@example.com';
  const customer = { id: customerId(state, shop, email), email, phone: null };
  const orderIds = orders.filter((o) => o.email?.toLowerCase() === email.toLowerCase()).map((o) => o.id);
  return topic === 'customers/redact'
    ? { shop_id: shop.id, shop_domain: shop.host, customer, orders_to_redact: orderIds }
    : { shop_id: shop.id, shop_domain: shop.host, orders_requested: orderIds, customer, data_request: { id: state.nextId() } };
}

const topicEnum = (topic: string) => topic.toUpperCase().replace(/[/.]/g, '_');

export async function sendWebhooks(
  state: State,
  shop: SimShop,
  input: { topic: WebhookTopic; clientId?: string; address?: string; customerEmail?: string; subject?: { orderId: number; refundId: number } },
  timeoutMs: number,
): Promise<WebhookDelivery[]> {
  // Every app that was ever installed hears privacy requests; one app can be singled out.
  // Order topics reach the apps subscribed to them (with read_orders); the rest every app ever installed.
  const subscribers = input.topic === 'refunds/create' ? shop.webhookSubscriptions.filter((s) => s.topic === topicEnum(input.topic)).map((s) => s.clientId) : [...shop.everInstalled];
  const clientIds = input.clientId ? [input.clientId] : [...new Set(subscribers)];
  if (input.topic === 'refunds/create' && clientIds.length === 0) return [];
  if (clientIds.length === 0) throw new PlatformError(409, { error: `no app was ever installed on ${shop.host}`, code: 'NOT_INSTALLED' });
  const deliveries: WebhookDelivery[] = [];
  for (const clientId of clientIds) {
    const app = state.apps.get(clientId);
    if (!app) throw new PlatformError(404, { error: `unknown app ${clientId}`, code: 'NOT_FOUND' });
    // An API subscription of the topic wins; else the app configuration's address (compliance topics always).
    const subscribed = COMPLIANCE.has(input.topic) ? undefined : shop.webhookSubscriptions.find((s) => s.clientId === clientId && s.topic === topicEnum(input.topic));
    const address = input.address ?? subscribed?.uri ?? app.webhookAddress;
    if (input.topic === 'app/uninstalled') uninstall(state, shop, clientId);
    const body = JSON.stringify(payloadFor(state, shop, input.topic, input.customerEmail, input.subject));
    const id = randomUUID();
    const sentAt = new Date().toISOString();
    const headers = {
      'content-type': 'application/json',
      'x-shopify-topic': input.topic,
      'x-shopify-hmac-sha256': signWebhook(body, app.clientSecret),
      'x-shopify-shop-domain': shop.host,
      'x-shopify-api-version': WEBHOOKS_API_VERSION,
      'x-shopify-webhook-id': id,
      'x-shopify-triggered-at': sentAt,
      'x-shopify-event-id': randomUUID(),
    };
    deliveries.push(await post({ id, topic: input.topic, shop: shop.host, clientId, address, status: null, ok: false, body, headers, sentAt }, timeoutMs));
  }
  return deliveries;
}

/** Shopify's retry of a delivery: the same event (payload, triggered-at, event id) under a new webhook id, to the same address. */
export function retryDelivery(previous: WebhookDelivery, timeoutMs: number): Promise<WebhookDelivery> {
  const id = randomUUID();
  const headers = { ...previous.headers, 'x-shopify-webhook-id': id };
  return post({ ...previous, id, headers, status: null, ok: false, error: undefined, sentAt: new Date().toISOString() }, timeoutMs);
}

async function post(delivery: WebhookDelivery, timeoutMs: number): Promise<WebhookDelivery> {
  if (!delivery.address) return { ...delivery, error: 'the app has no webhook address' };
  try {
    const res = await fetch(delivery.address, { method: 'POST', body: delivery.body, signal: AbortSignal.timeout(timeoutMs), headers: delivery.headers });
    await res.arrayBuffer();
    return { ...delivery, status: res.status, ok: res.ok };
  } catch (err) {
    return { ...delivery, error: describeFetchError(err, timeoutMs) };
  }
}

/** X-Shopify-Hmac-Sha256 of a body: base64 HMAC-SHA256 with the app's client secret. */
export const signWebhook = (body: string | Buffer, secret: string) => createHmac('sha256', secret).update(body).digest('base64');

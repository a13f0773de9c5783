// Webhooks the platform posts to installed apps: app/uninstalled and the three mandatory privacy topics,
// signed with the app's secret (integrations/storefront-a/webhooks.ts holds the scheme).
import { randomUUID } from 'node:crypto';
import { STOREFRONT_A_API_VERSION } from '../../integrations/storefront-a/client.js';
import { signWebhookBody, WEBHOOK_HEADERS, type WebhookTopic } from '../../integrations/storefront-a/webhooks.js';
import { describeFetchError, PlatformError } from '../storefront-common/web.js';
import { customerId, shopJson, type SimShop, type State } from './state.js';

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
  sentAt: string;
}

/** Uninstalling removes the app's install, every access token it held for the shop and its script tags. */
export function uninstall(state: State, shop: SimShop, clientId: string): void {
  shop.installs.delete(clientId);
  for (const [token, grant] of state.tokens) if (grant.shop === shop.host && grant.clientId === clientId) state.tokens.delete(token);
  for (const [id, tag] of shop.scriptTags) if (tag.clientId === clientId) shop.scriptTags.delete(id);
}

function payloadFor(state: State, shop: SimShop, topic: WebhookTopic, customerEmail: string | undefined): unknown {
  if (topic === 'app/uninstalled') return shopJson(shop);
  if (topic === 'shop/redact') return { shop_id: shop.id, shop_domain: shop.host };
  const orders = [...shop.orders.values()];
  const email = customerEmail ?? orders[0]?.email ?? 'shopper@example.com';
  const customer = { id: customerId(state, shop, email), email, phone: null };
  const orderIds = orders.filter((o) => o.email?.toLowerCase() === email.toLowerCase()).map((o) => o.id);
  return topic === 'customers/redact'
    ? { shop_id: shop.id, shop_domain: shop.host, customer, orders_to_redact: orderIds }
    : { shop_id: shop.id, shop_domain: shop.host, orders_requested: orderIds, customer, data_request: { id: state.nextId() } };
}

export async function sendWebhooks(
  state: State,
  shop: SimShop,
  input: { topic: WebhookTopic; clientId?: string; address?: string; customerEmail?: string },
  timeoutMs: number,
): Promise<WebhookDelivery[]> {
  // Every app that was ever installed hears privacy requests; one app can be singled out.
  const clientIds = input.clientId ? [input.clientId] : [...shop.everInstalled];
  if (clientIds.length === 0) throw new PlatformError(409, { error: `no app was ever installed on ${shop.host}`, code: 'NOT_INSTALLED' });
  const deliveries: WebhookDelivery[] = [];
  for (const clientId of clientIds) {
    const app = state.apps.get(clientId);
    if (!app) throw new PlatformError(404, { error: `unknown app ${clientId}`, code: 'NOT_FOUND' });
    if (input.topic === 'app/uninstalled') uninstall(state, shop, clientId);
    const body = JSON.stringify(payloadFor(state, shop, input.topic, input.customerEmail));
    const delivery: WebhookDelivery = {
      id: randomUUID(), topic: input.topic, shop: shop.host, clientId, address: input.address ?? app.webhookAddress, status: null, ok: false, body, sentAt: new Date().toISOString(),
    };
    if (!delivery.address) delivery.error = 'the app has no webhook address';
    else {
      try {
        const res = await fetch(delivery.address, {
          method: 'POST',
          body,
          signal: AbortSignal.timeout(timeoutMs),
          headers: {
            'content-type': 'application/json',
            [WEBHOOK_HEADERS.topic]: input.topic,
            [WEBHOOK_HEADERS.shopDomain]: shop.host,
            [WEBHOOK_HEADERS.hmac]: signWebhookBody(body, app.clientSecret),
            [WEBHOOK_HEADERS.webhookId]: delivery.id,
            [WEBHOOK_HEADERS.apiVersion]: STOREFRONT_A_API_VERSION,
            [WEBHOOK_HEADERS.triggeredAt]: delivery.sentAt,
          },
        });
        await res.arrayBuffer();
        delivery.status = res.status;
        delivery.ok = res.ok;
      } catch (err) {
        delivery.error = describeFetchError(err, timeoutMs);
      }
    }
    deliveries.push(delivery);
  }
  return deliveries;
}

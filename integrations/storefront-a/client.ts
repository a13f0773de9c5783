// Client of one installed Shopify shop (docs/storefront-a.md): the GraphQL Admin API through Shopify's
// @shopify/admin-api-client and the Storefront API through @shopify/storefront-api-client (both build the URL,
// headers and body exactly as Shopify ships them), with what the libraries leave to us: cost-based throttling
// (THROTTLED is never retried by them), error classification, and orders exactly once via a draft order
// completed once. URLs come from apiUrlTemplate, so the same code talks to https://{shop} or the sandbox.
import { createAdminApiClient } from '@shopify/admin-api-client';
import { createStorefrontApiClient } from '@shopify/storefront-api-client';
import { z } from 'zod';
import { IntegrationError } from '../errors.js';
import { decimalToMinor, minorToDecimal } from '../storefront-common/money.js';
import { parseOrderInput, refundMark, type OrderAddress, type StoreOrder, type StoreOrderInput, type StoreRefund, type StoreRefundInput } from '../storefront-common/order.js';
import { STOREFRONT_A_API_VERSION } from './api-version.js';
import { DEFAULT_API_URL_TEMPLATE, shopBaseUrl } from './oauth.js';

export { STOREFRONT_A_API_VERSION } from './api-version.js';

const SYSTEM = 'storefront-a';
/** The app embed block of our theme app extension (store-extensions/storefront-a-theme-extension/blocks/). */
export const APP_EMBED_HANDLE = 'checkout-embed';
/** App-data metafields the embed reads (app.metafields.hosted_checkout.*). */
export const APP_METAFIELD_NAMESPACE = 'hosted_checkout';
/** The custom attribute that ties an order to its checkout session. */
export const SESSION_ATTRIBUTE = 'checkout_session_token';

export interface StorefrontAClientOptions {
  /** Shop host, e.g. demo-shop.myshopify.com. */
  shop: string;
  accessToken: string;
  /**
   * The private Storefront API token (a delegate access token) the install created: cart reads from this server send
   * it as Shopify-Storefront-Private-Token with the shopper's IP. Preferred over `storefrontToken`.
   */
  storefrontPrivateToken?: string;
  /** A public Storefront API token (X-Shopify-Storefront-Access-Token), as installs before private tokens made. */
  storefrontToken?: string;
  apiUrlTemplate?: string;
  /** Host suffix shops must have (default .myshopify.com; config STOREFRONT_A_SHOP_SUFFIX). */
  shopSuffix?: string;
  timeoutMs?: number;
  /** Longest total wait for throttles (cost bucket, 429, 430) before answering rate_limited (default 10 s). */
  maxThrottleWaitMs?: number;
  fetch?: typeof fetch;
}

export interface StorefrontAShop {
  id: string;
  name: string;
  email: string;
  myshopifyDomain: string;
  currency: string;
  primaryDomain: string;
  /** https origins the shop's storefront is served on (primary, market web presences, myshopify). */
  origins: string[];
}

export interface StorefrontACartLine {
  productId: string;
  variantId: string;
  title: string;
  variantTitle: string | null;
  quantity: number;
  unitPriceMinor: number;
  imageUrl: string | null;
}

export interface StorefrontACart {
  token: string;
  currency: string;
  /** Country of the buyer's market (ISO 3166-1 alpha-2). */
  country: string;
  items: StorefrontACartLine[];
  subtotalMinor: number;
}

export interface EmbedStatus {
  /** The embed is on (present and not disabled) in the published theme's settings_data.json. */
  active: boolean;
  /** It was activated once (present in settings_data.json, maybe disabled since). */
  present: boolean;
  themeName: string | null;
}

export interface ScriptTag {
  id: string;
  src: string;
}

/** What a cart read sends besides the token: the shopper's IP (Shopify-Storefront-Buyer-IP), with a private token. */
export interface CartReadOptions {
  buyerIp?: string;
}

/** The Storefront API scopes a delegate token carries: cart reads (read_checkouts, product_listings) and emptying (write_checkouts). */
export const STOREFRONT_DELEGATE_SCOPES = ['unauthenticated_read_checkouts', 'unauthenticated_write_checkouts', 'unauthenticated_read_product_listings'] as const;
/** Storefront API header naming the buyer a private-token request is made for. */
export const BUYER_IP_HEADER = 'Shopify-Storefront-Buyer-IP';
/** Throttled answers waited out before rate_limited (the total wait is bounded by maxThrottleWaitMs too). */
export const MAX_THROTTLE_RETRIES = 3;
/** First wait after a throttle that names none (no Retry-After, no cost): doubled on each retry. */
const THROTTLE_BACKOFF_MS = 250;
/** Waits between reads of a draft that is not ready yet, within one attempt (about 1.5 s in all; then the activity retries). */
const READY_WAITS_MS = [50, 100, 200, 400, 800] as const;
/** Completions tried in one attempt (each after reading the draft), and the first wait between them (doubled each time). */
const MAX_COMPLETE_TRIES = 4;
const COMPLETE_BACKOFF_MS = 200;

/** Where the order flow keeps its intent between attempts (the activity stores it with the session). */
export interface OrderIntent {
  draftOrderId(): Promise<string | null>;
  recordDraftOrder(draftOrderId: string): Promise<void>;
}

type Json = Record<string, unknown>;
const gidNumber = (gid: string) => /\/(\d+)(?:\?.*)?$/.exec(gid)?.[1] ?? gid;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const moneySchema = z.object({ amount: z.string(), currencyCode: z.string() });
const orderSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  displayFinancialStatus: z.string().nullable(),
  totalPriceSet: z.object({ shopMoney: moneySchema, presentmentMoney: moneySchema }),
  customAttributes: z.array(z.object({ key: z.string(), value: z.string().nullable() })),
});
const ORDER_FIELDS = 'id name createdAt displayFinancialStatus totalPriceSet { shopMoney { amount currencyCode } presentmentMoney { amount currencyCode } } customAttributes { key value }';

function toStoreOrder(o: z.output<typeof orderSchema>): StoreOrder {
  const money = o.totalPriceSet.presentmentMoney;
  let totalMinor: number;
  try {
    totalMinor = decimalToMinor(money.amount, money.currencyCode);
  } catch (err) {
    throw new IntegrationError(SYSTEM, 'invalid_response', `order ${o.id} total ${money.amount}: ${(err as Error).message}`);
  }
  return {
    id: gidNumber(o.id),
    number: o.name,
    status: (o.displayFinancialStatus ?? 'PENDING').toLowerCase(),
    paid: o.displayFinancialStatus === 'PAID',
    currency: money.currencyCode,
    totalMinor,
    sessionToken: o.customAttributes.find((a) => a.key === SESSION_ATTRIBUTE)?.value ?? null,
    createdAt: o.createdAt,
  };
}

const toAddress = (a: OrderAddress) => ({
  firstName: a.firstName,
  lastName: a.lastName,
  address1: a.line1,
  address2: a.line2 ?? null,
  city: a.city,
  zip: a.postalCode,
  provinceCode: a.region ?? null,
  countryCode: a.countryCode,
  phone: a.phone ?? null,
});

/** Our neutral order as a DraftOrderInput: every price is the one charged, in the session currency. */
export function toDraftOrderInput(input: StoreOrderInput) {
  const o = parseOrderInput(SYSTEM, input);
  const money = (minor: number) => ({ amount: minorToDecimal(minor, o.currency), currencyCode: o.currency });
  return {
    email: o.email,
    presentmentCurrencyCode: o.currency,
    tags: ['hosted-checkout', o.sessionToken],
    customAttributes: [
      { key: SESSION_ATTRIBUTE, value: o.sessionToken },
      ...(o.payment.reference ? [{ key: 'payment_reference', value: o.payment.reference }] : []),
    ],
    note: {
      card: `Paid with the hosted checkout${o.payment.reference ? ` (payment ${o.payment.reference})` : ''}`,
      cod: 'Cash on delivery (hosted checkout)',
      free: 'Nothing to pay: total 0 (hosted checkout)',
    }[o.payment.method],
    lineItems: o.lines.map((l) =>
      l.variantId !== undefined
        ? { variantId: `gid://shopify/ProductVariant/${l.variantId}`, quantity: l.quantity, priceOverride: money(l.unitPriceMinor) }
        : { title: l.title, quantity: l.quantity, originalUnitPriceWithCurrency: money(l.unitPriceMinor), sku: l.sku ?? null },
    ),
    shippingLine: { title: o.shipping.title, priceWithCurrency: money(o.shipping.priceMinor) },
    ...(o.discount ? { appliedDiscount: { title: o.discount.code, value: Number(minorToDecimal(o.discount.amountMinor, o.currency)), valueType: 'FIXED_AMOUNT', amountWithCurrency: money(o.discount.amountMinor) } } : {}),
    shippingAddress: toAddress(o.shippingAddress),
    billingAddress: toAddress(o.billingAddress ?? o.shippingAddress),
  };
}

export function createStorefrontAClient(opts: StorefrontAClientOptions) {
  const base = shopBaseUrl(opts.apiUrlTemplate ?? DEFAULT_API_URL_TEMPLATE, opts.shop, opts.shopSuffix);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxThrottleWaitMs = opts.maxThrottleWaitMs ?? 10_000;
  const doFetch = opts.fetch ?? fetch;
  // The libraries address https://{shop}/…; the template decides where that really is (sandbox or Shopify).
  const customFetchApi = (url: string | URL | Request, init?: RequestInit) => {
    const target = String(url).replace(/^https:\/\/[^/]+/, base);
    return doFetch(target, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  };
  const admin = createAdminApiClient({ storeDomain: opts.shop, apiVersion: STOREFRONT_A_API_VERSION, accessToken: opts.accessToken, customFetchApi, retries: 0 });
  // Server-side reads use the private token (Shopify's guidance for servers); a shop installed before it has only a public one.
  const storefront = opts.storefrontPrivateToken
    ? createStorefrontApiClient({ storeDomain: opts.shop, apiVersion: STOREFRONT_A_API_VERSION, privateAccessToken: opts.storefrontPrivateToken, customFetchApi, retries: 0 })
    : opts.storefrontToken
      ? createStorefrontApiClient({ storeDomain: opts.shop, apiVersion: STOREFRONT_A_API_VERSION, publicAccessToken: opts.storefrontToken, customFetchApi, retries: 0 })
      : null;

  /**
   * One GraphQL call through a library client: HTTP and GraphQL errors classified, throttles waited out within bounds
   * (a few attempts and maxThrottleWaitMs in all): THROTTLED (Admin: until the cost bucket holds the query), HTTP 429
   * (Retry-After seconds when given) and HTTP 430 (Shopify's security rejection of traffic it takes for a bot), with or
   * without a body or code; then rate_limited, which callers retry — never a permanent refusal.
   */
  async function call(client: { fetch: (op: string, o: { variables?: Json; retries?: number; headers?: Record<string, string> }) => Promise<Response> }, what: string, query: string, variables: Json = {}, headers?: Record<string, string>): Promise<Json> {
    let waited = 0;
    for (let throttles = 0; ; throttles++) {
      const throttled = async (wait: number, why: string, status?: number, remote?: unknown) => {
        if (throttles >= MAX_THROTTLE_RETRIES || waited + wait > maxThrottleWaitMs) throw new IntegrationError(SYSTEM, 'rate_limited', `${what}: ${why}`, { status, remote });
        waited += wait;
        await sleep(wait);
      };
      const backoff = THROTTLE_BACKOFF_MS * 2 ** throttles;
      let res: Response;
      try {
        res = await client.fetch(query, { variables, retries: 0, ...(headers ? { headers } : {}) });
      } catch (err) {
        const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError' || /aborted|timeout/i.test(String((err as Error).message));
        throw new IntegrationError(SYSTEM, timedOut ? 'timeout' : 'unavailable', `${what}: ${timedOut ? `no answer within ${timeoutMs} ms` : (err as Error).message}`, { cause: err });
      }
      const text = await res.text().catch(() => '');
      let body: Json | undefined;
      try {
        body = text ? (JSON.parse(text) as Json) : undefined;
      } catch {
        body = undefined;
      }
      if (res.status === 429 || res.status === 430) {
        // Retry-After is in seconds on Shopify's side; a 430 (and often a 429) carries none: back off. A 5xx is not
        // waited out here: the caller's retry policy (activity retries) decides, so a merchant's request is not held
        // for seconds by a store that is down.
        const retryAfter = Number(res.headers.get('retry-after'));
        await throttled(retryAfter > 0 ? retryAfter * 1000 : backoff, `HTTP ${res.status}${res.status === 430 ? ' (Shopify security rejection)' : ''}`, res.status, body ?? text);
        continue;
      }
      if (!res.ok) {
        const kind = res.status === 401 || res.status === 403 ? 'unauthorized' : res.status === 404 ? 'not_found' : res.status >= 500 ? 'unavailable' : 'rejected';
        throw new IntegrationError(SYSTEM, kind, `${what}: HTTP ${res.status}`, { status: res.status, remote: body ?? text });
      }
      if (!body) throw new IntegrationError(SYSTEM, 'invalid_response', `${what}: not JSON`, { status: res.status, remote: text.slice(0, 300) });
      const errors = Array.isArray(body.errors) ? (body.errors as Array<{ message?: string; extensions?: { code?: string } }>) : [];
      // THROTTLED by code, or by its message alone (the Storefront API's checkout throttle answers 200 "Throttled").
      if (errors.some((e) => e.extensions?.code === 'THROTTLED' || (!e.extensions?.code && /^throttled$/i.test(e.message?.trim() ?? '')))) {
        // Admin: wait until the bucket holds what this query asked for (restoreRate points per second); without a cost, back off.
        const cost = (body.extensions as { cost?: { requestedQueryCost?: number; throttleStatus?: { currentlyAvailable?: number; restoreRate?: number } } } | undefined)?.cost;
        const missing = (cost?.requestedQueryCost ?? 0) - (cost?.throttleStatus?.currentlyAvailable ?? 0);
        const wait = cost?.throttleStatus ? Math.max(50, Math.ceil((missing / (cost.throttleStatus.restoreRate || 50)) * 1000)) : backoff;
        await throttled(wait, `throttled (query cost ${cost?.requestedQueryCost ?? '?'})`, res.status, body);
        continue;
      }
      if (errors.length) {
        // ACCESS_DENIED: a scope is missing; INTERNAL_SERVER_ERROR: Shopify failed on its side (a mutation may have
        // committed: retryable, and callers read back before writing again); anything else refuses the request itself.
        const code = (e: { extensions?: { code?: string } }) => e.extensions?.code;
        const kind = errors.some((e) => code(e) === 'ACCESS_DENIED') ? 'unauthorized' : errors.some((e) => code(e) === 'INTERNAL_SERVER_ERROR') ? 'unavailable' : 'rejected';
        throw new IntegrationError(SYSTEM, kind, `${what}: ${errors.map((e) => e.message).join('; ')}`, { status: res.status, remote: body });
      }
      if (!body.data || typeof body.data !== 'object') throw new IntegrationError(SYSTEM, 'invalid_response', `${what}: no data`, { remote: body });
      return body.data as Json;
    }
  }
  const adminCall = (what: string, query: string, variables?: Json) => call(admin, what, query, variables);
  function parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new IntegrationError(SYSTEM, 'invalid_response', `${what}: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`, { remote: value });
    return parsed.data;
  }
  /** A mutation's userErrors are a refusal of this input: permanent. */
  function userErrors(payload: { userErrors?: Array<{ field?: string[] | null; message: string }> } | null | undefined, what: string): void {
    const errs = payload?.userErrors ?? [];
    if (errs.length) throw new IntegrationError(SYSTEM, 'rejected', `${what}: ${errs.map((e) => `${e.field?.join('.') ?? ''} ${e.message}`.trim()).join('; ')}`, { remote: { errors: errs.map((e) => e.message).join('; ') } });
  }

  const draftSchema = z.object({ id: z.string(), status: z.enum(['OPEN', 'INVOICE_SENT', 'COMPLETED']), ready: z.boolean(), totalPriceSet: z.object({ presentmentMoney: moneySchema }), totalTaxSet: z.object({ presentmentMoney: moneySchema }), order: orderSchema.nullable() });
  const DRAFT_FIELDS = `id status ready totalPriceSet { presentmentMoney { amount currencyCode } } totalTaxSet { presentmentMoney { amount currencyCode } } order { ${ORDER_FIELDS} }`;
  type DraftRead = { id: string; status: z.output<typeof draftSchema>['status']; ready: boolean; totalMinor: number; taxMinor: number; order: StoreOrder | null };
  const toDraftRead = (d: z.output<typeof draftSchema>): DraftRead => ({ id: d.id, status: d.status, ready: d.ready, totalMinor: minorOf(d.totalPriceSet.presentmentMoney, 'draft total'), taxMinor: minorOf(d.totalTaxSet.presentmentMoney, 'draft tax'), order: d.order ? toStoreOrder(d.order) : null });

  /** Shopify's "Due on fulfillment" payment terms template (paymentTermsTemplates, no access scope): cash on delivery. */
  async function fulfillmentTermsTemplateId(): Promise<string> {
    const data = await adminCall('payment terms templates', 'query Terms { paymentTermsTemplates(paymentTermsType: FULFILLMENT) { id paymentTermsType } }');
    const templates = parse(z.object({ paymentTermsTemplates: z.array(z.object({ id: z.string(), paymentTermsType: z.string() })) }), data, 'payment terms templates').paymentTermsTemplates;
    const template = templates.find((t) => t.paymentTermsType === 'FULFILLMENT');
    if (!template) throw new IntegrationError(SYSTEM, 'rejected', 'the store offers no "Due on fulfillment" payment terms: a cash-on-delivery order cannot be left payment pending');
    return template.id;
  }

  /**
   * The draft once Shopify has finished its asynchronous work on it (DraftOrder.ready) or has made its order: read
   * again a few times, briefly (READY_WAITS_MS); still not ready, a retryable `unavailable` hands the wait to the
   * activity's retry policy, which backs off durably instead of holding the worker.
   */
  async function readyDraft(draft: DraftRead): Promise<DraftRead> {
    for (const wait of READY_WAITS_MS) {
      if (draft.ready || draft.order) return draft;
      await sleep(wait);
      draft = await client.getDraftOrder(draft.id);
    }
    if (draft.ready || draft.order) return draft;
    throw new IntegrationError(SYSTEM, 'unavailable', `draft order ${draft.id} is not ready to be completed yet (Shopify is still working on it): tried again later`);
  }

  const client = {
    shop: opts.shop,

    /**
     * The shop and the https origins its storefront is served on: the primary domain, the domains of its markets' web
     * presences (`webPresences`, read_markets; Shopify redirects every other domain to the primary one) and the
     * myshopify host (the first 50 presences: more markets than that is not expected, and a connection's query cost
     * grows with `first`). Not `Shop.domains`, deprecated in 2026-10 (its replacement `domainsPaginated` is only in
     * `unstable`). A shop installed before read_markets was asked answers ACCESS_DENIED there: its primary domain
     * and myshopify host still count, until the merchant reconnects.
     */
    async getShop(): Promise<StorefrontAShop> {
      const data = await adminCall('shop', 'query Shop { shop { id name email myshopifyDomain currencyCode primaryDomain { host } } }');
      const s = parse(z.object({ shop: z.object({ id: z.string(), name: z.string(), email: z.string(), myshopifyDomain: z.string(), currencyCode: z.string(), primaryDomain: z.object({ host: z.string() }) }) }), data, 'shop').shop;
      let marketHosts: string[] = [];
      try {
        const presences = await adminCall('web presences', 'query WebPresences { webPresences(first: 50) { nodes { domain { host } } } }');
        const nodes = parse(z.object({ webPresences: z.object({ nodes: z.array(z.object({ domain: z.object({ host: z.string() }).nullable() })) }).nullable() }), presences, 'web presences').webPresences?.nodes ?? [];
        marketHosts = nodes.flatMap((n) => (n.domain ? [n.domain.host] : []));
      } catch (err) {
        if (!(err instanceof IntegrationError && err.kind === 'unauthorized')) throw err;
      }
      const hosts = [s.primaryDomain.host, ...marketHosts, s.myshopifyDomain].map((h) => h.toLowerCase());
      return { id: s.id, name: s.name, email: s.email, myshopifyDomain: s.myshopifyDomain, currency: s.currencyCode, primaryDomain: s.primaryDomain.host, origins: [...new Set(hosts)].map((h) => `https://${h}`) };
    },

    /**
     * The countries the shop ships to: Shop.shipsToCountries (CountryCode, the countries of its shipping zones; a
     * "Rest of World" zone lists every country). Needs no access scope. Codes as Shopify sends them.
     */
    async getShipsToCountries(): Promise<string[]> {
      const data = await adminCall('ships-to countries', 'query ShipsTo { shop { shipsToCountries } }');
      return parse(z.object({ shop: z.object({ shipsToCountries: z.array(z.string()) }) }), data, 'ships-to countries').shop.shipsToCountries;
    },

    /**
     * The shop's legal policies (Shop.shopPolicies: type, the title in the shop's language, the public URL of its
     * page), as the merchant wrote them in Settings → Policies; a policy never written is not listed. ShopPolicy needs
     * the `read_legal_policies` scope: a shop installed before we asked for it answers ACCESS_DENIED, thrown as
     * `unauthorized` (the caller keeps the reason; the merchant reconnects to grant it). Titles and URLs as Shopify
     * sends them: the caller checks them before keeping them.
     */
    async getShopPolicies(): Promise<Array<{ type: string; title: string; url: string }>> {
      const data = await adminCall('shop policies', 'query ShopPolicies { shop { shopPolicies { type title url } } }');
      return parse(z.object({ shop: z.object({ shopPolicies: z.array(z.object({ type: z.string(), title: z.string(), url: z.string() })) }) }), data, 'shop policies').shop.shopPolicies;
    },

    /**
     * The private Storefront API token for server-side cart reads: a delegate access token with the given
     * unauthenticated_* scopes of the app (delegateAccessTokenCreate), non-expiring like its parent offline token.
     * Shopify's guidance for server-side Storefront API use (docs/storefront-a.md, "Cart").
     */
    async createStorefrontPrivateToken(scopes: readonly string[] = STOREFRONT_DELEGATE_SCOPES): Promise<string> {
      const data = await adminCall('delegate token', 'mutation Delegate($input: DelegateAccessTokenInput!) { delegateAccessTokenCreate(input: $input) { delegateAccessToken { accessToken } userErrors { code field message } } }', { input: { delegateAccessScope: [...scopes] } });
      const p = parse(z.object({ delegateAccessTokenCreate: z.object({ delegateAccessToken: z.object({ accessToken: z.string() }).nullable(), userErrors: z.array(z.object({ code: z.string().nullable().optional(), field: z.array(z.string()).nullable(), message: z.string() })) }) }), data, 'delegate token').delegateAccessTokenCreate;
      userErrors(p, 'delegate token');
      if (!p.delegateAccessToken) throw new IntegrationError(SYSTEM, 'invalid_response', 'delegate token: none returned');
      return p.delegateAccessToken.accessToken;
    },

    /** A public Storefront API token (the app's unauthenticated_* scopes): for browsers; kept for the contract of older installs. */
    async createStorefrontToken(title: string): Promise<string> {
      const data = await adminCall('storefront token', 'mutation Token($input: StorefrontAccessTokenInput!) { storefrontAccessTokenCreate(input: $input) { storefrontAccessToken { accessToken } userErrors { field message } } }', { input: { title } });
      const p = parse(z.object({ storefrontAccessTokenCreate: z.object({ storefrontAccessToken: z.object({ accessToken: z.string() }).nullable(), userErrors: z.array(z.object({ field: z.array(z.string()).nullable(), message: z.string() })) }) }), data, 'storefront token').storefrontAccessTokenCreate;
      userErrors(p, 'storefront token');
      if (!p.storefrontAccessToken) throw new IntegrationError(SYSTEM, 'invalid_response', 'storefront token: none returned');
      return p.storefrontAccessToken.accessToken;
    },

    /** Subscribes the topics to our webhook address; an existing identical subscription counts as done. */
    async subscribeWebhooks(uri: string, topics: readonly string[]): Promise<void> {
      for (const topic of topics) {
        const data = await adminCall('webhook subscription', 'mutation Sub($topic: WebhookSubscriptionTopic!, $sub: WebhookSubscriptionInput!) { webhookSubscriptionCreate(topic: $topic, webhookSubscription: $sub) { webhookSubscription { id } userErrors { field message } } }', { topic, sub: { uri, format: 'JSON' } });
        const p = parse(z.object({ webhookSubscriptionCreate: z.object({ userErrors: z.array(z.object({ field: z.array(z.string()).nullable(), message: z.string() })) }) }), data, 'webhook subscription').webhookSubscriptionCreate;
        userErrors({ userErrors: p.userErrors.filter((e) => !/already been taken/i.test(e.message)) }, `webhook subscription ${topic}`);
      }
    },

    /** App-data metafields the app embed reads in Liquid (only our app can write them). */
    async setAppConfig(values: Record<string, string>): Promise<void> {
      const data = await adminCall('app installation', 'query Me { currentAppInstallation { id } }');
      const ownerId = parse(z.object({ currentAppInstallation: z.object({ id: z.string() }) }), data, 'app installation').currentAppInstallation.id;
      const metafields = Object.entries(values).map(([key, value]) => ({ ownerId, namespace: APP_METAFIELD_NAMESPACE, key, value, type: 'single_line_text_field' }));
      const set = await adminCall('app config', 'mutation Set($metafields: [MetafieldsSetInput!]!) { metafieldsSet(metafields: $metafields) { metafields { key } userErrors { field message } } }', { metafields });
      userErrors(parse(z.object({ metafieldsSet: z.object({ userErrors: z.array(z.object({ field: z.array(z.string()).nullable(), message: z.string() })) }) }), set, 'app config').metafieldsSet, 'app config');
    },

    /**
     * Is our app embed on in the published theme? Read from its config/settings_data.json, where Shopify names each
     * embed `shopify://apps/<app handle>/blocks/<block handle>/<uid>`: ours is the block of OUR app (its handle read in
     * the same query), so another app's block of the same name never counts.
     */
    async embedStatus(blockHandle = APP_EMBED_HANDLE): Promise<EmbedStatus> {
      const data = await adminCall('theme settings', 'query Main { currentAppInstallation { app { handle } } themes(first: 1, roles: [MAIN]) { nodes { name files(filenames: ["config/settings_data.json"], first: 1) { nodes { body { ... on OnlineStoreThemeFileBodyText { content } } } } } } }');
      const read = parse(z.object({ currentAppInstallation: z.object({ app: z.object({ handle: z.string().nullable() }) }), themes: z.object({ nodes: z.array(z.object({ name: z.string(), files: z.object({ nodes: z.array(z.object({ body: z.object({ content: z.string().optional() }) })) }).nullable() })) }) }), data, 'theme settings');
      const theme = read.themes.nodes[0];
      const appHandle = read.currentAppInstallation.app.handle;
      if (!appHandle) throw new IntegrationError(SYSTEM, 'invalid_response', 'theme settings: the app has no handle to find its embed by');
      if (!theme) return { active: false, present: false, themeName: null };
      return { ...embedInSettings(theme.files?.nodes[0]?.body.content ?? '', { appHandle, blockHandle }), themeName: theme.name };
    },

    async listScriptTags(): Promise<ScriptTag[]> {
      const data = await adminCall('script tags', 'query Tags { scriptTags(first: 50) { nodes { id src } } }');
      return parse(z.object({ scriptTags: z.object({ nodes: z.array(z.object({ id: z.string(), src: z.string() })) }) }), data, 'script tags').scriptTags.nodes;
    },

    /** Deletes a (legacy) script tag; one that is gone already counts as deleted. */
    async deleteScriptTag(id: string): Promise<void> {
      const data = await adminCall('script tag delete', 'mutation Del($id: ID!) { scriptTagDelete(id: $id) { deletedScriptTagId userErrors { field message } } }', { id });
      const p = parse(z.object({ scriptTagDelete: z.object({ userErrors: z.array(z.object({ field: z.array(z.string()).nullable(), message: z.string() })) }) }), data, 'script tag delete').scriptTagDelete;
      userErrors({ userErrors: p.userErrors.filter((e) => !/does not exist/i.test(e.message)) }, 'script tag delete');
    },

    /**
     * The shopper's cart, read authoritatively through the Storefront API: prices from the store only. With the private
     * token the shopper's IP goes along (Shopify-Storefront-Buyer-IP), so Shopify throttles and bot-checks each shopper
     * on their own instead of this server as one client.
     */
    async getCart(cartToken: string, read: CartReadOptions = {}): Promise<StorefrontACart> {
      if (!storefront) throw new IntegrationError(SYSTEM, 'unauthorized', 'No Storefront API token: install the app again');
      const headers = opts.storefrontPrivateToken && read.buyerIp ? { [BUYER_IP_HEADER]: read.buyerIp } : undefined;
      const data = await call(storefront, 'cart', CART_QUERY, { id: `gid://shopify/Cart/${cartToken}` }, headers);
      const cart = parse(cartSchema, data, 'cart').cart;
      if (!cart) throw new IntegrationError(SYSTEM, 'not_found', 'cart: the store has no such cart');
      const minor = (m: z.output<typeof moneySchema>) => {
        try {
          return decimalToMinor(m.amount, m.currencyCode);
        } catch (err) {
          throw new IntegrationError(SYSTEM, 'invalid_response', `cart amount ${m.amount}: ${(err as Error).message}`);
        }
      };
      const items = cart.lines.nodes.map((l) => ({
        productId: gidNumber(l.merchandise.product.id),
        variantId: gidNumber(l.merchandise.id),
        title: l.merchandise.product.title,
        variantTitle: l.merchandise.title === 'Default Title' ? null : l.merchandise.title,
        quantity: l.quantity,
        unitPriceMinor: minor(l.cost.amountPerQuantity),
        imageUrl: l.merchandise.image?.url ?? null,
      }));
      return { token: cartToken, currency: cart.cost.subtotalAmount.currencyCode, country: cart.buyerIdentity.countryCode ?? '', items, subtotalMinor: minor(cart.cost.subtotalAmount) };
    },

    /**
     * Empties the shopper's cart once the order is placed (the online store's cart is the Storefront API's cart: the
     * same token): every line removed with cartLinesRemove (scope unauthenticated_write_checkouts). A cart that is gone
     * or already empty needs nothing. Answers how many lines were removed.
     */
    async emptyCart(cartToken: string): Promise<number> {
      if (!storefront) throw new IntegrationError(SYSTEM, 'unauthorized', 'No Storefront API token: install the app again');
      const cartId = `gid://shopify/Cart/${cartToken}`;
      const data = await call(storefront, 'cart lines', 'query Lines($id: ID!) { cart(id: $id) { lines(first: 250) { nodes { id } } } }', { id: cartId });
      const cart = parse(z.object({ cart: z.object({ lines: z.object({ nodes: z.array(z.object({ id: z.string() })) }) }).nullable() }), data, 'cart lines').cart;
      const lineIds = cart?.lines.nodes.map((l) => l.id) ?? [];
      if (lineIds.length === 0) return 0;
      const removed = await call(storefront, 'cart lines remove', 'mutation Empty($cartId: ID!, $lineIds: [ID!]!) { cartLinesRemove(cartId: $cartId, lineIds: $lineIds) { userErrors { field message } } }', { cartId, lineIds });
      userErrors(parse(z.object({ cartLinesRemove: z.object({ userErrors: z.array(z.object({ field: z.array(z.string()).nullable(), message: z.string() })) }) }), removed, 'cart lines remove').cartLinesRemove, 'cart lines remove');
      return lineIds.length;
    },

    async getDraftOrder(draftOrderId: string): Promise<DraftRead> {
      const data = await adminCall('draft order', `query Draft($id: ID!) { draftOrder(id: $id) { ${DRAFT_FIELDS} } }`, { id: draftOrderId });
      const d = parse(z.object({ draftOrder: draftSchema.nullable() }), data, 'draft order').draftOrder;
      if (!d) throw new IntegrationError(SYSTEM, 'not_found', `draft order ${draftOrderId} not found`);
      return toDraftRead(d);
    },

    /**
     * The tax Shopify would charge on this order, by its own tax settings and the shipping address (draftOrderCalculate
     * on the very input the order is made of): inside the prices when the shop's prices include tax, else on top.
     */
    async calculateTaxes(input: StoreOrderInput): Promise<{ taxMinor: number; taxesIncluded: boolean; totalMinor: number }> {
      const data = await adminCall('draft order calculate', `mutation Calc($input: DraftOrderInput!) { draftOrderCalculate(input: $input) { calculatedDraftOrder { taxesIncluded totalTaxSet { presentmentMoney { amount currencyCode } } totalPriceSet { presentmentMoney { amount currencyCode } } } userErrors { field message } } }`, { input: toDraftOrderInput(input) });
      const p = parse(z.object({ draftOrderCalculate: z.object({ calculatedDraftOrder: z.object({ taxesIncluded: z.boolean(), totalTaxSet: z.object({ presentmentMoney: moneySchema }), totalPriceSet: z.object({ presentmentMoney: moneySchema }) }).nullable(), userErrors: z.array(z.object({ field: z.array(z.string()).nullable(), message: z.string() })) }) }), data, 'draft order calculate').draftOrderCalculate;
      userErrors(p, 'draft order calculate');
      if (!p.calculatedDraftOrder) throw new IntegrationError(SYSTEM, 'invalid_response', 'draft order calculate: no calculated draft order');
      const c = p.calculatedDraftOrder;
      return { taxMinor: minorOf(c.totalTaxSet.presentmentMoney, 'tax'), taxesIncluded: c.taxesIncluded, totalMinor: minorOf(c.totalPriceSet.presentmentMoney, 'total') };
    },

    /**
     * The order of a paid checkout, exactly once without store-side idempotency keys: a draft order (recorded in
     * `intent` before it is completed) completed once. Before every completion the draft is read (by id — no search
     * index): one with an order is that order. Shopify may still be working on a new draft (`DraftOrder.ready`): it is
     * awaited a little here, then left to the activity's next attempt. Whatever the completion answers short of an
     * order — a time-out, an internal error, a user error while a completion is in flight — is retryable: the next
     * try reads the draft first, so the completion that did commit is the order, and a second one is never made.
     */
    async placeOrder(input: StoreOrderInput, intent: OrderIntent): Promise<{ order: StoreOrder; created: boolean }> {
      const charged = parseOrderInput(SYSTEM, input).totals.totalMinor;
      /** Shopify taxes the draft by the shop's settings: completed only when it books what the shopper was charged. */
      const sameTotal = (draft: { totalMinor: number; taxMinor: number }) => {
        if (draft.totalMinor === charged) return;
        throw new IntegrationError(SYSTEM, 'rejected', `the store would book ${minorToDecimal(draft.totalMinor, input.currency)} ${input.currency} (tax ${minorToDecimal(draft.taxMinor, input.currency)}), the shopper was charged ${minorToDecimal(charged, input.currency)} ${input.currency}: the draft order was left open, not completed as paid (check the shop's tax settings, then create the order by hand)`);
      };
      let draftId = await intent.draftOrderId();
      let draft: DraftRead;
      if (draftId) {
        draft = await client.getDraftOrder(draftId);
        if (draft.order) return { order: draft.order, created: false };
        sameTotal(draft);
      } else {
        // Cash on delivery: the draft carries payment terms "due on fulfillment", so its completion leaves the order
        // payment pending (2026-10 deprecates draftOrderComplete(paymentPending:) for payment terms on the draft).
        const paymentTerms = input.payment.method === 'cod' ? { paymentTermsTemplateId: await fulfillmentTermsTemplateId() } : undefined;
        // An answer lost here leaves at most an extra open draft, which never becomes an order by itself.
        const data = await adminCall('draft order create', `mutation Create($input: DraftOrderInput!) { draftOrderCreate(input: $input) { draftOrder { ${DRAFT_FIELDS} } userErrors { field message } } }`, { input: { ...toDraftOrderInput(input), ...(paymentTerms ? { paymentTerms } : {}) } });
        const p = parse(z.object({ draftOrderCreate: z.object({ draftOrder: draftSchema.nullable(), userErrors: z.array(z.object({ field: z.array(z.string()).nullable(), message: z.string() })) }) }), data, 'draft order create').draftOrderCreate;
        userErrors(p, 'draft order create');
        if (!p.draftOrder) throw new IntegrationError(SYSTEM, 'invalid_response', 'draft order create: no draft order');
        draftId = p.draftOrder.id;
        await intent.recordDraftOrder(draftId);
        draft = toDraftRead(p.draftOrder);
        sameTotal(draft);
      }
      for (let attempt = 0; ; attempt++) {
        draft = await readyDraft(draft);
        if (draft.order) return { order: draft.order, created: false };
        try {
          const data = await adminCall('draft order complete', `mutation Complete($id: ID!) { draftOrderComplete(id: $id) { draftOrder { ${DRAFT_FIELDS} } userErrors { field message } } }`, { id: draftId });
          const p = parse(z.object({ draftOrderComplete: z.object({ draftOrder: draftSchema.nullable(), userErrors: z.array(z.object({ field: z.array(z.string()).nullable(), message: z.string() })) }) }), data, 'draft order complete').draftOrderComplete;
          if (!p.userErrors.length && p.draftOrder?.order) return { order: toStoreOrder(p.draftOrder.order), created: true };
          // No order in the answer: refused while the draft was busy (a completion in flight, work not finished) or
          // already completed. Nothing tells those apart from a refusal for good, so the draft decides, next try.
          const why = p.userErrors.length ? p.userErrors.map((e) => e.message).join('; ') : 'answered without an order';
          throw new IntegrationError(SYSTEM, 'unavailable', `draft order complete: ${why}; the draft is read again before any new completion`, { remote: { errors: why } });
        } catch (err) {
          if (!(err instanceof IntegrationError) || !err.retryable || attempt >= MAX_COMPLETE_TRIES - 1) throw err;
          await sleep(COMPLETE_BACKOFF_MS * 2 ** attempt);
          // Ambiguous: the completion may have committed, or may be committing. Ask the draft itself.
          draft = await client.getDraftOrder(draftId);
          if (draft.order) return { order: draft.order, created: false };
        }
      }
    },

    /**
     * Refunds an order we created (refundCreate, 2026-10): the money as a REFUND transaction against the order's
     * successful sale on its gateway (a draft completed as paid is a manual sale), the given-back lines as
     * refundLineItems, restocked (CANCEL while unfulfilled, RETURN once fulfilled) or not. Exactly once: the call
     * carries `@idempotent(key:)` with our refund id (mandatory since 2026-04), and the note carries our mark, so a
     * refund whose answer was lost is found on the order before anything is sent again.
     */
    async refundOrder(orderId: string, input: StoreRefundInput): Promise<StoreRefund> {
      const gidOrder = `gid://shopify/Order/${orderId}`;
      const data = await adminCall('order for refund', REFUND_CONTEXT_QUERY, { id: gidOrder });
      const order = parse(refundContextSchema, data, 'order for refund').order;
      if (!order) throw new IntegrationError(SYSTEM, 'not_found', `order ${orderId} not found`);
      const mark = refundMark(input.refundId);
      const existing = order.refunds.find((r) => r.note?.includes(mark));
      if (existing) return { id: gidNumber(existing.id), amountMinor: minorOf(existing.totalRefundedSet.presentmentMoney, 'refund'), orderStatus: statusWord(order.displayFinancialStatus), created: false };
      const sales = order.transactions.filter((t) => (t.kind === 'SALE' || t.kind === 'CAPTURE') && t.status === 'SUCCESS');
      const refundedOf = (id: string) => order.transactions.filter((t) => t.kind === 'REFUND' && t.status === 'SUCCESS' && t.parentTransaction?.id === id).reduce((n, t) => n + minorOf(t.amountSet.presentmentMoney, 'transaction'), 0);
      const parent = sales.find((t) => minorOf(t.amountSet.presentmentMoney, 'transaction') - refundedOf(t.id) >= input.amountMinor);
      if (input.amountMinor > 0 && !parent) {
        throw new IntegrationError(SYSTEM, 'rejected', `order ${order.name} has no paid sale of ${minorToDecimal(input.amountMinor, input.currency)} ${input.currency} left to refund on the store`);
      }
      const lineItems = order.lineItems.nodes;
      const refundLineItems = input.lines.map((l) => {
        const item = lineItems[l.line];
        if (!item) throw new IntegrationError(SYSTEM, 'rejected', `order ${order.name} has no line ${l.line + 1}`);
        const restockType = !input.restock ? 'NO_RESTOCK' : item.unfulfilledQuantity >= l.quantity ? 'CANCEL' : 'RETURN';
        return { lineItemId: item.id, quantity: l.quantity, restockType };
      });
      const refundInput = {
        orderId: gidOrder,
        note: input.reason ? `${input.reason} ${mark}` : `Refunded through the hosted checkout ${mark}`,
        notify: false,
        ...(refundLineItems.length ? { refundLineItems } : {}),
        ...(parent && input.amountMinor > 0
          ? { transactions: [{ orderId: gidOrder, parentId: parent.id, kind: 'REFUND', gateway: parent.gateway ?? 'manual', amount: minorToDecimal(input.amountMinor, input.currency) }] }
          : {}),
      };
      const created = await adminCall('refund create', REFUND_CREATE, { input: refundInput, key: input.refundId });
      const p = parse(z.object({ refundCreate: z.object({ refund: z.object({ id: z.string(), totalRefundedSet: z.object({ presentmentMoney: moneySchema }) }).nullable(), order: z.object({ displayFinancialStatus: z.string().nullable() }).nullable(), userErrors: z.array(z.object({ field: z.array(z.string()).nullable(), message: z.string() })) }) }), created, 'refund create').refundCreate;
      userErrors(p, 'refund create');
      if (!p.refund) throw new IntegrationError(SYSTEM, 'invalid_response', 'refund create: no refund');
      return { id: gidNumber(p.refund.id), amountMinor: minorOf(p.refund.totalRefundedSet.presentmentMoney, 'refund'), orderStatus: statusWord(p.order?.displayFinancialStatus ?? null), created: true };
    },

    async getOrder(orderId: string): Promise<StoreOrder> {
      const data = await adminCall('order', `query Order($id: ID!) { order(id: $id) { ${ORDER_FIELDS} } }`, { id: `gid://shopify/Order/${orderId}` });
      const o = parse(z.object({ order: orderSchema.nullable() }), data, 'order').order;
      if (!o) throw new IntegrationError(SYSTEM, 'not_found', `order ${orderId} not found`);
      return toStoreOrder(o);
    },
  };
  return client;
}

export type StorefrontAClient = ReturnType<typeof createStorefrontAClient>;

/**
 * Whether settings_data.json (theme JSON may start with a comment) holds our embed, and whether it is on: a
 * `current.blocks` entry whose type is `shopify://apps/<our app handle>/blocks/<our block handle>/<uid>` and that is
 * not `disabled` (shopify.dev, theme app extensions: "Detecting app blocks and app embed blocks").
 */
export function embedInSettings(content: string, ours: { appHandle: string; blockHandle?: string }): { active: boolean; present: boolean } {
  let json: { current?: { blocks?: Record<string, { type?: string; disabled?: boolean }> } } | undefined;
  try {
    json = JSON.parse(content.replace(/^\s*\/\*[\s\S]*?\*\//, '')) as typeof json;
  } catch {
    return { active: false, present: false };
  }
  const prefix = `shopify://apps/${ours.appHandle}/blocks/${ours.blockHandle ?? APP_EMBED_HANDLE}/`;
  const current = json?.current;
  const blocks = current && typeof current === 'object' ? Object.values(current.blocks ?? {}) : [];
  const mine = blocks.filter((b) => typeof b?.type === 'string' && b.type.startsWith(prefix) && b.type.length > prefix.length);
  return { present: mine.length > 0, active: mine.some((b) => b.disabled !== true) };
}

const REFUND_CONTEXT_QUERY = `query RefundContext($id: ID!) {
  order(id: $id) {
    id
    name
    displayFinancialStatus
    transactions(first: 50) { id kind status gateway amountSet { presentmentMoney { amount currencyCode } } parentTransaction { id } }
    refunds(first: 50) { id note totalRefundedSet { presentmentMoney { amount currencyCode } } }
    lineItems(first: 250) { nodes { id quantity unfulfilledQuantity } }
  }
}`;

const REFUND_CREATE = `mutation Refund($input: RefundInput!, $key: String!) {
  refundCreate(input: $input) @idempotent(key: $key) {
    refund { id totalRefundedSet { presentmentMoney { amount currencyCode } } }
    order { displayFinancialStatus }
    userErrors { field message }
  }
}`;

const refundContextSchema = z.object({
  order: z
    .object({
      id: z.string(),
      name: z.string(),
      displayFinancialStatus: z.string().nullable(),
      transactions: z.array(z.object({ id: z.string(), kind: z.string(), status: z.string(), gateway: z.string().nullable(), amountSet: z.object({ presentmentMoney: moneySchema }), parentTransaction: z.object({ id: z.string() }).nullable() })),
      refunds: z.array(z.object({ id: z.string(), note: z.string().nullable(), totalRefundedSet: z.object({ presentmentMoney: moneySchema }) })),
      lineItems: z.object({ nodes: z.array(z.object({ id: z.string(), quantity: z.number().int(), unfulfilledQuantity: z.number().int() })) }),
    })
    .nullable(),
});

/** Shopify's financial status as the lower-case word the rest of the service shows ("partially_refunded"). */
const statusWord = (s: string | null) => (s ?? 'PENDING').toLowerCase();

function minorOf(m: z.output<typeof moneySchema>, what: string): number {
  try {
    return decimalToMinor(m.amount, m.currencyCode);
  } catch (err) {
    throw new IntegrationError(SYSTEM, 'invalid_response', `${what} amount ${m.amount}: ${(err as Error).message}`);
  }
}

const CART_QUERY = `query Cart($id: ID!) {
  cart(id: $id) {
    id
    buyerIdentity { countryCode }
    cost { subtotalAmount { amount currencyCode } }
    lines(first: 100) {
      nodes {
        quantity
        cost { amountPerQuantity { amount currencyCode } }
        merchandise { ... on ProductVariant { id title image { url } product { id title } } }
      }
    }
  }
}`;

const cartSchema = z.object({
  cart: z
    .object({
      id: z.string(),
      buyerIdentity: z.object({ countryCode: z.string().nullable() }),
      cost: z.object({ subtotalAmount: moneySchema }),
      lines: z.object({
        nodes: z.array(
          z.object({
            quantity: z.number().int().min(1),
            cost: z.object({ amountPerQuantity: moneySchema }),
            merchandise: z.object({ id: z.string(), title: z.string(), image: z.object({ url: z.string() }).nullable(), product: z.object({ id: z.string(), title: z.string() }) }),
          }),
        ),
      }),
    })
    .nullable(),
});

export interface ExchangeCodeInput {
  shop: string;
  clientId: string;
  clientSecret: string;
  code: string;
  apiUrlTemplate?: string;
  /** Host suffix shops must have (default .myshopify.com; config STOREFRONT_A_SHOP_SUFFIX). */
  shopSuffix?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/**
 * Trades the one-time code of the OAuth callback for the shop's offline access token (JSON, as the library sends it).
 * `expiring: "0"` asks for a non-expiring token: Shopify requires expiring offline tokens (60 minutes, with a refresh
 * token) of public apps only; custom apps and apps created by merchants, as this one is, keep non-expiring ones
 * (docs/storefront-a.md, "Offline token"). An answer that expires anyway is refused here, not stored to stop
 * working an hour later (and the delegate Storefront token cannot be made from such a parent).
 */
export async function exchangeCode(input: ExchangeCodeInput): Promise<{ accessToken: string; scopes: string[] }> {
  const url = `${shopBaseUrl(input.apiUrlTemplate ?? DEFAULT_API_URL_TEMPLATE, input.shop, input.shopSuffix)}/admin/oauth/access_token`;
  let res: Response;
  try {
    res = await (input.fetch ?? fetch)(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ client_id: input.clientId, client_secret: input.clientSecret, code: input.code, expiring: '0' }),
      signal: AbortSignal.timeout(input.timeoutMs ?? 10_000),
    });
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    throw new IntegrationError(SYSTEM, timedOut ? 'timeout' : 'unavailable', `access token: ${(err as Error).message}`, { cause: err });
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  if (!res.ok) {
    const kind = res.status === 401 || res.status === 403 ? 'unauthorized' : res.status === 404 ? 'not_found' : res.status >= 500 ? 'unavailable' : 'rejected';
    throw new IntegrationError(SYSTEM, kind, `access token: HTTP ${res.status}`, { status: res.status, remote: body });
  }
  const parsed = z.object({ access_token: z.string().min(1), scope: z.string(), expires_in: z.number().optional(), refresh_token: z.string().optional() }).safeParse(body);
  if (!parsed.success) throw new IntegrationError(SYSTEM, 'invalid_response', 'access token: unexpected answer', { remote: body });
  if (parsed.data.expires_in !== undefined || parsed.data.refresh_token !== undefined) {
    throw new IntegrationError(SYSTEM, 'invalid_response', `access token: Shopify issued an expiring offline token (expires in ${parsed.data.expires_in ?? '?'} s) although a non-expiring one was asked for; this service keeps the non-expiring offline token of a merchant-created app`);
  }
  return { accessToken: parsed.data.access_token, scopes: parsed.data.scope.split(',').filter(Boolean) };
}

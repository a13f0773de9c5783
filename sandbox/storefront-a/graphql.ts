// The GraphQL side of the simulator, written from the 2026-10 references on shopify.dev: the Admin API at
// /admin/api/<version>/graphql.json (X-Shopify-Access-Token, scopes per field, cost extensions and THROTTLED)
// and the Storefront API at /api/<version>/graphql.json (cart(id:)). Each schema is a subset of Shopify's SDL
// executed by graphql-js, so a field Shopify does not have is a validation error here as well.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  buildSchema,
  execute,
  getNamedType,
  GraphQLError,
  isObjectType,
  isAbstractType,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { PlatformError, randomHex } from '../storefront-common/web.js';
import { toDecimal } from './money.js';
import { admitStorefrontRequest, createDelegateToken } from './storefront-access.js';
import { calculateDraftOrder, completeDraftOrder, completionRefusal, createDraftOrder, createRefund, draftTotals, orderMoney, type DraftOrderInput, type RefundInput } from './orders.js';
import {
  cartTokenOf,
  findVariant,
  gid,
  hasScope,
  idOf,
  imageUrl,
  PAYMENT_TERMS_TEMPLATES,
  primaryDomainOf,
  requireShop,
  type Bucket,
  type DraftFaults,
  type SimDraftOrder,
  type SimOrder,
  type SimRefund,
  type SimShop,
  type SimTransaction,
  SHOPIFY_COUNTRY_CODES,
  SHOP_POLICY_DEFAULTS,
  SHOP_POLICY_TYPES,
  type SimTheme,
  type State,
  type TokenGrant,
} from './state.js';

// Shopify's CountryCode is an enum (state.ts keeps its values from shopify.dev); CurrencyCode stays a scalar here:
// test shops are made in any ISO 4217 currency Intl knows, a superset of Shopify's enum.
const COUNTRY_CODE_ENUM = `enum CountryCode { ${SHOPIFY_COUNTRY_CODES.join(' ')} }`;

const ADMIN_SDL = /* GraphQL */ `
  scalar DateTime
  scalar HTML
  scalar Decimal
  scalar URL
  ${COUNTRY_CODE_ENUM}
  scalar CurrencyCode
  scalar JSON

  type Query {
    shop: Shop!
    currentAppInstallation: AppInstallation!
    draftOrder(id: ID!): DraftOrder
    paymentTermsTemplates(paymentTermsType: PaymentTermsType): [PaymentTermsTemplate!]!
    webPresences(first: Int, after: String, before: String, last: Int, reverse: Boolean): MarketWebPresenceConnection
    order(id: ID!): Order
    themes(first: Int, roles: [ThemeRole!]): OnlineStoreThemeConnection
    scriptTags(first: Int): ScriptTagConnection!
    webhookSubscriptions(first: Int): WebhookSubscriptionConnection!
  }

  type Mutation {
    draftOrderCreate(input: DraftOrderInput!): DraftOrderCreatePayload
    draftOrderCalculate(input: DraftOrderInput!): DraftOrderCalculatePayload
    draftOrderComplete(id: ID!, paymentGatewayId: ID, sourceName: String, paymentPending: Boolean @deprecated(reason: "Create a draft with payment terms rather than marking the draft as pending.")): DraftOrderCompletePayload
    refundCreate(input: RefundInput!): RefundCreatePayload
    storefrontAccessTokenCreate(input: StorefrontAccessTokenInput!): StorefrontAccessTokenCreatePayload
    delegateAccessTokenCreate(input: DelegateAccessTokenInput!): DelegateAccessTokenCreatePayload
    webhookSubscriptionCreate(topic: WebhookSubscriptionTopic!, webhookSubscription: WebhookSubscriptionInput!): WebhookSubscriptionCreatePayload
    metafieldsSet(metafields: [MetafieldsSetInput!]!): MetafieldsSetPayload
    scriptTagCreate(input: ScriptTagInput!): ScriptTagCreatePayload
    scriptTagDelete(id: ID!): ScriptTagDeletePayload
  }

  type UserError { field: [String!] message: String! }
  type MoneyV2 { amount: Decimal! currencyCode: CurrencyCode! }
  type MoneyBag { shopMoney: MoneyV2! presentmentMoney: MoneyV2! }
  type Attribute { key: String! value: String }
  input AttributeInput { key: String! value: String! }
  input MoneyInput { amount: Decimal! currencyCode: CurrencyCode! }

  type Domain { id: ID! host: String! url: URL! sslEnabled: Boolean! }
  type MarketWebPresenceRootUrl { locale: String! url: URL! }
  type MarketWebPresence { id: ID! domain: Domain subfolderSuffix: String rootUrls: [MarketWebPresenceRootUrl!]! }
  type MarketWebPresenceConnection { nodes: [MarketWebPresence!]! }
  type Shop {
    id: ID!
    name: String!
    email: String!
    myshopifyDomain: String!
    currencyCode: CurrencyCode!
    url: URL!
    primaryDomain: Domain!
    domains: [Domain!]! @deprecated(reason: "Use domainsPaginated instead.")
    shipsToCountries: [CountryCode!]!
    shopPolicies: [ShopPolicy!]!
  }
  enum ShopPolicyType { ${SHOP_POLICY_TYPES.join(' ')} }
  type ShopPolicy { id: ID! type: ShopPolicyType! title: String! body: HTML! url: URL! createdAt: DateTime! updatedAt: DateTime! }
  type App { id: ID! title: String! handle: String apiKey: String! }
  type AppInstallation { id: ID! app: App! accessScopes: [AccessScope!]! }
  type AccessScope { handle: String! }

  enum DraftOrderStatus { OPEN INVOICE_SENT COMPLETED }
  enum DraftOrderAppliedDiscountType { FIXED_AMOUNT PERCENTAGE }
  input MailingAddressInput {
    address1: String
    address2: String
    city: String
    company: String
    countryCode: CountryCode
    firstName: String
    lastName: String
    phone: String
    provinceCode: String
    zip: String
  }
  input DraftOrderLineItemInput {
    variantId: ID
    quantity: Int!
    title: String
    sku: String
    priceOverride: MoneyInput
    originalUnitPriceWithCurrency: MoneyInput
    customAttributes: [AttributeInput!]
    requiresShipping: Boolean
    taxable: Boolean
  }
  input ShippingLineInput { title: String priceWithCurrency: MoneyInput shippingRateHandle: String }
  input DraftOrderAppliedDiscountInput {
    title: String
    description: String
    value: Float!
    valueType: DraftOrderAppliedDiscountType!
    amountWithCurrency: MoneyInput
  }
  enum PaymentTermsType { FIXED FULFILLMENT NET RECEIPT UNKNOWN }
  type PaymentTermsTemplate { id: ID! name: String! description: String! dueInDays: Int paymentTermsType: PaymentTermsType! translatedName: String! }
  input PaymentScheduleInput { issuedAt: DateTime dueAt: DateTime }
  input PaymentTermsInput { paymentTermsTemplateId: ID paymentSchedules: [PaymentScheduleInput!] }
  input DraftOrderInput {
    lineItems: [DraftOrderLineItemInput!]
    email: String
    phone: String
    note: String
    tags: [String!]
    customAttributes: [AttributeInput!]
    shippingAddress: MailingAddressInput
    billingAddress: MailingAddressInput
    shippingLine: ShippingLineInput
    appliedDiscount: DraftOrderAppliedDiscountInput
    presentmentCurrencyCode: CurrencyCode
    sourceName: String
    taxExempt: Boolean
    paymentTerms: PaymentTermsInput
  }
  type DraftOrderLineItem { title: String! quantity: Int! sku: String variant: ProductVariant originalUnitPriceSet: MoneyBag! customAttributes: [Attribute!]! }
  type DraftOrderLineItemConnection { nodes: [DraftOrderLineItem!]! }
  type ProductVariant { id: ID! title: String! sku: String }
  type DraftOrder {
    id: ID!
    name: String!
    status: DraftOrderStatus!
    ready: Boolean!
    email: String
    note2: String
    tags: [String!]!
    customAttributes: [Attribute!]!
    currencyCode: CurrencyCode!
    presentmentCurrencyCode: CurrencyCode!
    subtotalPriceSet: MoneyBag!
    totalPriceSet: MoneyBag!
    totalTaxSet: MoneyBag!
    taxesIncluded: Boolean!
    createdAt: DateTime!
    completedAt: DateTime
    order: Order
    lineItems(first: Int): DraftOrderLineItemConnection!
  }
  type DraftOrderCreatePayload { draftOrder: DraftOrder userErrors: [UserError!]! }
  type TaxLine { title: String! rate: Float ratePercentage: Float priceSet: MoneyBag! }
  type CalculatedDraftOrder {
    currencyCode: CurrencyCode!
    presentmentCurrencyCode: CurrencyCode!
    subtotalPriceSet: MoneyBag!
    totalShippingPriceSet: MoneyBag!
    totalTaxSet: MoneyBag!
    taxesIncluded: Boolean!
    taxLines: [TaxLine!]!
    totalPriceSet: MoneyBag!
  }
  type DraftOrderCalculatePayload { calculatedDraftOrder: CalculatedDraftOrder userErrors: [UserError!]! }
  type DraftOrderCompletePayload { draftOrder: DraftOrder userErrors: [UserError!]! }

  enum OrderDisplayFinancialStatus { PENDING AUTHORIZED PARTIALLY_PAID PARTIALLY_REFUNDED VOIDED PAID REFUNDED EXPIRED }
  type LineItem { id: ID! title: String! quantity: Int! currentQuantity: Int! unfulfilledQuantity: Int! refundableQuantity: Int! sku: String variant: ProductVariant originalUnitPriceSet: MoneyBag! }
  type LineItemConnection { nodes: [LineItem!]! }

  # Refunds (2026-10: refundCreate takes @idempotent(key:), mandatory since 2026-04).
  directive @idempotent(key: String!) on FIELD
  scalar Money
  enum OrderTransactionKind { SALE CAPTURE AUTHORIZATION VOID REFUND CHANGE EMV_AUTHORIZATION SUGGESTED_REFUND }
  enum OrderTransactionStatus { SUCCESS FAILURE PENDING ERROR AWAITING_RESPONSE UNKNOWN }
  enum RefundLineItemRestockType { CANCEL LEGACY_RESTOCK NO_RESTOCK RETURN }
  type OrderTransaction { id: ID! kind: OrderTransactionKind! status: OrderTransactionStatus! gateway: String amountSet: MoneyBag! parentTransaction: OrderTransaction createdAt: DateTime! }
  type OrderTransactionConnection { nodes: [OrderTransaction!]! }
  type RefundLineItem { lineItem: LineItem! quantity: Int! restockType: RefundLineItemRestockType! restocked: Boolean! }
  type RefundLineItemConnection { nodes: [RefundLineItem!]! }
  type Refund { id: ID! createdAt: DateTime note: String totalRefundedSet: MoneyBag! transactions(first: Int): OrderTransactionConnection! refundLineItems(first: Int): RefundLineItemConnection! }
  input RefundLineItemInput { lineItemId: ID! locationId: ID quantity: Int! restockType: RefundLineItemRestockType }
  input ShippingRefundInput { amount: Money fullRefund: Boolean }
  input OrderTransactionInput { amount: Money! gateway: String! kind: OrderTransactionKind! orderId: ID! parentId: ID }
  input RefundInput {
    allowOverRefunding: Boolean
    currency: CurrencyCode
    note: String
    notify: Boolean
    orderId: ID!
    processedAt: DateTime
    refundLineItems: [RefundLineItemInput!]
    shipping: ShippingRefundInput
    transactions: [OrderTransactionInput!]
  }
  type RefundCreatePayload { order: Order refund: Refund userErrors: [UserError!]! }
  type Order {
    id: ID!
    name: String!
    email: String
    note: String
    createdAt: DateTime!
    displayFinancialStatus: OrderDisplayFinancialStatus
    currencyCode: CurrencyCode!
    presentmentCurrencyCode: CurrencyCode!
    subtotalPriceSet: MoneyBag
    totalPriceSet: MoneyBag!
    totalTaxSet: MoneyBag
    taxesIncluded: Boolean!
    tags: [String!]!
    customAttributes: [Attribute!]!
    lineItems(first: Int): LineItemConnection!
    totalRefundedSet: MoneyBag!
    transactions(capturable: Boolean, first: Int, manuallyResolvable: Boolean): [OrderTransaction!]!
    refunds(first: Int): [Refund!]!
  }

  input StorefrontAccessTokenInput { title: String! }
  type StorefrontAccessToken { id: ID! accessToken: String! title: String! accessScopes: [AccessScope!]! createdAt: DateTime! }
  type StorefrontAccessTokenCreatePayload { storefrontAccessToken: StorefrontAccessToken shop: Shop! userErrors: [UserError!]! }
  input DelegateAccessTokenInput { delegateAccessScope: [String!]! expiresIn: Int }
  type DelegateAccessToken { accessScopes: [String!]! accessToken: String! createdAt: DateTime! expiresIn: Int }
  enum DelegateAccessTokenCreateUserErrorCode { DELEGATE_ACCESS_TOKEN EMPTY_ACCESS_SCOPE EXPIRES_AFTER_PARENT NEGATIVE_EXPIRES_IN PERSISTENCE_FAILED REFRESH_TOKEN UNKNOWN_SCOPES }
  type DelegateAccessTokenCreateUserError { code: DelegateAccessTokenCreateUserErrorCode field: [String!] message: String! }
  type DelegateAccessTokenCreatePayload { delegateAccessToken: DelegateAccessToken shop: Shop! userErrors: [DelegateAccessTokenCreateUserError!]! }

  enum WebhookSubscriptionTopic { APP_UNINSTALLED APP_SCOPES_UPDATE SHOP_UPDATE DOMAINS_CREATE DOMAINS_UPDATE DOMAINS_DESTROY THEMES_PUBLISH ORDERS_CREATE REFUNDS_CREATE }
  enum WebhookSubscriptionFormat { JSON XML }
  input WebhookSubscriptionInput { uri: String format: WebhookSubscriptionFormat callbackUrl: URL @deprecated(reason: "Use uri instead.") includeFields: [String!] filter: String }
  type WebhookSubscription { id: ID! topic: WebhookSubscriptionTopic! uri: String! format: WebhookSubscriptionFormat! }
  type WebhookSubscriptionConnection { nodes: [WebhookSubscription!]! }
  type WebhookSubscriptionCreatePayload { webhookSubscription: WebhookSubscription userErrors: [UserError!]! }

  input MetafieldsSetInput { ownerId: ID! namespace: String key: String! value: String! type: String }
  type Metafield { namespace: String! key: String! value: String! type: String! }
  enum MetafieldsSetUserErrorCode { APP_NOT_AUTHORIZED BLANK INCLUSION INVALID INVALID_TYPE INVALID_VALUE PRESENT }
  type MetafieldsSetUserError { field: [String!] message: String! code: MetafieldsSetUserErrorCode }
  type MetafieldsSetPayload { metafields: [Metafield!] userErrors: [MetafieldsSetUserError!]! }

  enum ThemeRole { MAIN UNPUBLISHED DEMO DEVELOPMENT ARCHIVED LOCKED }
  type OnlineStoreThemeFileBodyText { content: String! }
  type OnlineStoreThemeFileBodyBase64 { contentBase64: String! }
  type OnlineStoreThemeFileBodyUrl { url: URL! }
  union OnlineStoreThemeFileBody = OnlineStoreThemeFileBodyText | OnlineStoreThemeFileBodyBase64 | OnlineStoreThemeFileBodyUrl
  type OnlineStoreThemeFile { filename: String! body: OnlineStoreThemeFileBody! }
  type OnlineStoreThemeFileConnection { nodes: [OnlineStoreThemeFile!]! }
  type OnlineStoreTheme { id: ID! name: String! role: ThemeRole! files(filenames: [String!], first: Int): OnlineStoreThemeFileConnection }
  type OnlineStoreThemeConnection { nodes: [OnlineStoreTheme!]! }

  enum ScriptTagDisplayScope { ONLINE_STORE ORDER_STATUS ALL }
  input ScriptTagInput { src: URL displayScope: ScriptTagDisplayScope cache: Boolean }
  type ScriptTag { id: ID! src: URL! displayScope: ScriptTagDisplayScope! createdAt: DateTime! }
  type ScriptTagConnection { nodes: [ScriptTag!]! }
  type ScriptTagCreatePayload { scriptTag: ScriptTag userErrors: [UserError!]! }
  type ScriptTagDeletePayload { deletedScriptTagId: ID userErrors: [UserError!]! }
`;

const STOREFRONT_SDL = /* GraphQL */ `
  scalar DateTime
  scalar Decimal
  scalar URL
  ${COUNTRY_CODE_ENUM}
  scalar CurrencyCode

  type Query { cart(id: ID!): Cart }
  type Mutation { cartLinesRemove(cartId: ID!, lineIds: [ID!], viewKeys: [String!]): CartLinesRemovePayload }
  enum CartErrorCode { INVALID INVALID_MERCHANDISE_LINE }
  type CartUserError { code: CartErrorCode field: [String!] message: String! }
  enum CartWarningCode { MERCHANDISE_NOT_ENOUGH_STOCK MERCHANDISE_OUT_OF_STOCK }
  type CartWarning { code: CartWarningCode! message: String! target: ID! }
  type CartLinesRemovePayload { cart: Cart userErrors: [CartUserError!]! warnings: [CartWarning!]! }
  type MoneyV2 { amount: Decimal! currencyCode: CurrencyCode! }
  type Attribute { key: String! value: String }
  type CartDiscountCode { code: String! applicable: Boolean! }
  type CartBuyerIdentity { email: String phone: String countryCode: CountryCode }
  type CartCost { subtotalAmount: MoneyV2! totalAmount: MoneyV2! subtotalAmountEstimated: Boolean! totalAmountEstimated: Boolean! }
  type CartLineCost { amountPerQuantity: MoneyV2! compareAtAmountPerQuantity: MoneyV2 subtotalAmount: MoneyV2! totalAmount: MoneyV2! }
  type Image { url: URL! altText: String }
  type Product { id: ID! title: String! handle: String! }
  type ProductVariant { id: ID! title: String! sku: String availableForSale: Boolean! requiresShipping: Boolean! price: MoneyV2! image: Image product: Product! }
  union Merchandise = ProductVariant
  interface BaseCartLine { id: ID! quantity: Int! attributes: [Attribute!]! cost: CartLineCost! merchandise: Merchandise! }
  type CartLine implements BaseCartLine { id: ID! quantity: Int! attributes: [Attribute!]! cost: CartLineCost! merchandise: Merchandise! }
  type PageInfo { hasNextPage: Boolean! endCursor: String }
  type BaseCartLineConnection { nodes: [BaseCartLine!]! pageInfo: PageInfo! }
  type Cart {
    id: ID!
    createdAt: DateTime!
    updatedAt: DateTime!
    totalQuantity: Int!
    note: String
    checkoutUrl: URL!
    attributes: [Attribute!]!
    discountCodes: [CartDiscountCode!]!
    buyerIdentity: CartBuyerIdentity!
    cost: CartCost!
    lines(first: Int): BaseCartLineConnection!
  }
`;

export const adminSchema: GraphQLSchema = buildSchema(ADMIN_SDL);
export const storefrontSchema: GraphQLSchema = buildSchema(STOREFRONT_SDL);

/** Stable versions are released each quarter; each is supported for 12 months, then calls fall forward. */
export function supportedVersions(now = new Date()): string[] {
  const quarterStart = new Date(Date.UTC(now.getUTCFullYear(), Math.floor(now.getUTCMonth() / 3) * 3, 1));
  return [-9, -6, -3, 0].map((offset) => {
    const d = new Date(quarterStart);
    d.setUTCMonth(d.getUTCMonth() + offset);
    return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
  });
}
const VERSION = /^(20\d\d-(01|04|07|10)|unstable)$/;

/** The version a request is served with: its own when supported, else the oldest supported (fall forward). */
export function servedVersion(requested: string, now = new Date()): string {
  if (requested === 'unstable') return requested;
  const supported = supportedVersions(now);
  const next = (() => {
    const [y, m] = supported[3]!.split('-').map(Number) as [number, number];
    return m === 10 ? `${y + 1}-01` : `${y}-${String(m + 3).padStart(2, '0')}`;
  })();
  if (requested === next) return requested; // the release candidate
  if (supported.includes(requested)) return requested;
  return requested < supported[0]! ? supported[0]! : supported[3]!;
}

const money = (minor: number, currency: string) => ({ amount: toDecimal(minor, currency), currencyCode: currency });
const bag = (minor: number, currency: string) => ({ shopMoney: money(minor, currency), presentmentMoney: money(minor, currency) });

interface AdminContext {
  state: State;
  shop: SimShop;
  grant: TokenGrant;
  /** Set by a mutation hit by the "commit, then time out" fault: the answer never arrives in time. */
  hangMs: number | null;
}

function denied(field: string, scope: string): GraphQLError {
  return new GraphQLError(`Access denied for ${field} field. Required access: \`${scope}\` access scope.`, {
    extensions: { code: 'ACCESS_DENIED', documentation: 'https://shopify.dev/api/usage/access-scopes', requiredAccess: `\`${scope}\` access scope.` },
  });
}
function need(ctx: AdminContext, field: string, scope: string): void {
  if (!hasScope(ctx.grant.scopes, scope)) throw denied(field, scope);
}

const orderJson = (o: SimOrder) => ({
  id: gid('Order', o.id),
  name: o.name,
  email: o.email,
  note: o.note,
  createdAt: o.createdAt,
  displayFinancialStatus: o.financialStatus,
  currencyCode: o.currency,
  presentmentCurrencyCode: o.currency,
  subtotalPriceSet: bag(o.subtotal, o.currency),
  totalPriceSet: bag(o.total, o.currency),
  totalTaxSet: bag(o.tax, o.currency),
  taxesIncluded: o.taxesIncluded,
  tags: o.tags,
  customAttributes: o.customAttributes,
  lineItems: () => ({ nodes: o.lines.map((_, i) => lineItemJson(o, i)) }),
  totalRefundedSet: bag(orderMoney(o).refunded, o.currency),
  transactions: ({ first }: { first?: number }) => o.transactions.slice(0, first ?? 100).map((t) => transactionJson(o, t)),
  refunds: ({ first }: { first?: number }) => o.refunds.slice(0, first ?? 100).map((r) => refundJson(o, r)),
});

const lineItemJson = (o: SimOrder, i: number) => {
  const l = o.lines[i]!;
  // Nothing is ever fulfilled here: what was not given back is still to be fulfilled.
  const givenBack = o.refunds.flatMap((r) => r.lines).filter((x) => x.lineIndex === i).reduce((n, x) => n + x.quantity, 0);
  return {
    id: gid('LineItem', o.lineIds[i]!), title: l.title, quantity: l.quantity, sku: l.sku,
    currentQuantity: l.quantity - givenBack, unfulfilledQuantity: l.quantity - givenBack, refundableQuantity: l.quantity - givenBack,
    variant: l.variantId ? { id: gid('ProductVariant', l.variantId), title: l.variantTitle ?? 'Default Title', sku: l.sku } : null, originalUnitPriceSet: bag(l.unitPrice, o.currency),
  };
};

function transactionJson(o: SimOrder, t: SimTransaction): Record<string, unknown> {
  const parent = t.parentId === null ? undefined : o.transactions.find((x) => x.id === t.parentId);
  return { id: gid('OrderTransaction', t.id), kind: t.kind, status: t.status, gateway: t.gateway, amountSet: bag(t.amount, o.currency), parentTransaction: parent ? transactionJson(o, parent) : null, createdAt: t.createdAt };
}

const refundJson = (o: SimOrder, r: SimRefund) => ({
  id: gid('Refund', r.id), createdAt: r.createdAt, note: r.note, totalRefundedSet: bag(r.amount, o.currency),
  transactions: () => ({ nodes: o.transactions.filter((t) => r.transactionIds.includes(t.id)).map((t) => transactionJson(o, t)) }),
  refundLineItems: () => ({ nodes: r.lines.map((l) => ({ lineItem: lineItemJson(o, l.lineIndex), quantity: l.quantity, restockType: l.restockType, restocked: l.restockType !== 'NO_RESTOCK' })) }),
});

/**
 * The key of an `@idempotent(key:)` directive on the field being resolved (a literal or a variable), or null.
 * Shopify reads it from the mutation field: the same key replays the first result, since 2026-04 it is required.
 */
function idempotencyKeyOf(info: GraphQLResolveInfo): string | null {
  const directive = info.fieldNodes[0]?.directives?.find((d) => d.name.value === 'idempotent');
  const arg = directive?.arguments?.find((a) => a.name.value === 'key')?.value;
  if (!arg) return null;
  if (arg.kind === Kind.STRING) return arg.value;
  if (arg.kind === Kind.VARIABLE) {
    const value = info.variableValues[arg.name.value];
    return typeof value === 'string' ? value : null;
  }
  return null;
}

function draftJson(shop: SimShop, d: SimDraftOrder) {
  const { subtotal, total, tax, taxesIncluded } = draftTotals(shop, d);
  const order = d.orderId === null ? undefined : shop.orders.get(d.orderId);
  return {
    id: gid('DraftOrder', d.id),
    name: d.name,
    status: d.status,
    ready: d.notReadyReads === 0,
    email: d.email,
    note2: d.note,
    tags: d.tags,
    customAttributes: d.customAttributes,
    currencyCode: d.currency,
    presentmentCurrencyCode: d.currency,
    subtotalPriceSet: bag(subtotal, d.currency),
    totalPriceSet: bag(total, d.currency),
    totalTaxSet: bag(tax, d.currency),
    taxesIncluded,
    createdAt: d.createdAt,
    completedAt: d.completedAt,
    order: order ? orderJson(order) : null,
    lineItems: () => ({
      nodes: d.lines.map((l) => ({ title: l.title, quantity: l.quantity, sku: l.sku, customAttributes: l.customAttributes, variant: l.variantId ? { id: gid('ProductVariant', l.variantId), title: l.variantTitle ?? 'Default Title', sku: l.sku } : null, originalUnitPriceSet: bag(l.unitPrice, d.currency) })),
    }),
  };
}

const SETTINGS_HEADER = `/*
 * ------------------------------------------------------------
 * IMPORTANT: The contents of this file are auto-generated.
 *
 * This file may be updated by the Shopify admin theme editor
 * or related systems. Please exercise caution as any changes
 * made to this file may be overwritten.
 * ------------------------------------------------------------
 */
`;
export const settingsDataFile = (theme: SimTheme) => SETTINGS_HEADER + JSON.stringify(theme.settingsData, null, 2);

const domainJson = (d: { id: number; host: string }) => ({ id: gid('Domain', d.id), host: d.host, url: `https://${d.host}`, sslEnabled: true });

/**
 * The shop's web presences (read_markets): the primary domain's, and one per market domain. Other domains redirect to
 * the primary one, so these (with the myshopify host) are every domain a shopper browses on.
 */
function webPresencesJson(shop: SimShop) {
  const primary = primaryDomainOf(shop);
  const domains = [primary, ...shop.domains.filter((d) => d.webPresence && d.id !== primary.id)];
  return { nodes: domains.map((d) => ({ id: gid('MarketWebPresence', d.id), domain: domainJson(d), subfolderSuffix: null, rootUrls: [{ locale: 'en', url: `https://${d.host}` }] })) };
}

function shopJson(shop: SimShop) {
  const domain = domainJson;
  return {
    id: gid('Shop', shop.id),
    name: shop.name,
    email: shop.email,
    myshopifyDomain: shop.host,
    currencyCode: shop.currency,
    url: `https://${primaryDomainOf(shop).host}`,
    primaryDomain: domain(primaryDomainOf(shop)),
    domains: shop.domains.map(domain),
    shipsToCountries: shop.shipsToCountries,
  };
}

const WEBHOOK_SCOPES: Record<string, string | undefined> = { THEMES_PUBLISH: 'read_themes', ORDERS_CREATE: 'read_orders', REFUNDS_CREATE: 'read_orders' };
const MAX_STOREFRONT_TOKENS = 100;

function adminRoot(ctx: AdminContext) {
  const { state, shop, grant } = ctx;
  const install = shop.installs.get(grant.clientId)!;
  const app = state.apps.get(grant.clientId)!;
  const draftOf = (id: unknown) => {
    const n = idOf('DraftOrder', id);
    const d = n === null ? undefined : shop.draftOrders.get(n);
    return d && d.clientId === grant.clientId ? d : undefined;
  };
  return {
    shop: () => ({
      ...shopJson(shop),
      // ShopPolicy requires `read_legal_policies` (its requiredAccess in the 2026-10 reference): asked without it,
      // ACCESS_DENIED as for every scoped field here.
      shopPolicies: () => {
        need(ctx, 'shopPolicies', 'read_legal_policies');
        return shop.policies.map((p) => ({
          id: gid('ShopPolicy', p.id), type: p.type, title: p.title, body: p.body, createdAt: p.createdAt, updatedAt: p.updatedAt,
          // The storefront page of the policy, on the shop's primary domain.
          url: `https://${primaryDomainOf(shop).host}/policies/${SHOP_POLICY_DEFAULTS[p.type].handle}`,
        }));
      },
    }),
    currentAppInstallation: () => ({
      id: gid('AppInstallation', install.installationId),
      app: { id: gid('App', Number.parseInt(app.clientId.replace(/\D/g, '').slice(0, 12) || '1', 10)), title: app.name, handle: app.handle, apiKey: app.clientId },
      accessScopes: grant.scopes.map((handle) => ({ handle })),
    }),
    draftOrder: ({ id }: { id: string }) => {
      need(ctx, 'draftOrder', 'read_draft_orders');
      const d = draftOf(id);
      if (!d) return null;
      const json = draftJson(shop, d);
      // Shopify's asynchronous work on the draft goes on between reads ("not ready for N reads").
      if (d.notReadyReads > 0) d.notReadyReads -= 1;
      return json;
    },
    webPresences: ({ first }: { first?: number | null }) => {
      need(ctx, 'webPresences', 'read_markets');
      const all = webPresencesJson(shop);
      return { nodes: all.nodes.slice(0, first ?? 250) };
    },
    // "The list of payment terms templates eligible for all shops and users" (no access scope).
    paymentTermsTemplates: ({ paymentTermsType }: { paymentTermsType?: string | null }) =>
      PAYMENT_TERMS_TEMPLATES.filter((t) => !paymentTermsType || t.type === paymentTermsType).map((t) => ({ id: gid('PaymentTermsTemplate', t.id), name: t.name, description: t.description, dueInDays: t.dueInDays, paymentTermsType: t.type, translatedName: t.name })),
    order: ({ id }: { id: string }) => {
      need(ctx, 'order', 'read_orders');
      const n = idOf('Order', id);
      const o = n === null ? undefined : shop.orders.get(n);
      return o ? orderJson(o) : null;
    },
    themes: ({ first, roles }: { first?: number; roles?: string[] }) => {
      need(ctx, 'themes', 'read_themes');
      const themes = shop.themes.filter((t) => !roles || roles.includes(t.role)).slice(0, first ?? 50);
      return {
        nodes: themes.map((t) => ({
          id: gid('OnlineStoreTheme', t.id),
          name: t.name,
          role: t.role,
          files: ({ filenames }: { filenames?: string[] }) => ({
            nodes: (filenames ?? ['config/settings_data.json'])
              .filter((f) => f === 'config/settings_data.json')
              .map((filename) => ({ filename, body: { __typename: 'OnlineStoreThemeFileBodyText', content: settingsDataFile(t) } })),
          }),
        })),
      };
    },
    scriptTags: ({ first }: { first?: number }) => {
      need(ctx, 'scriptTags', 'read_script_tags');
      const tags = [...shop.scriptTags.values()].filter((t) => t.clientId === grant.clientId).slice(0, first ?? 50);
      return { nodes: tags.map((t) => ({ id: gid('ScriptTag', t.id), src: t.src, displayScope: t.displayScope, createdAt: t.createdAt })) };
    },
    webhookSubscriptions: ({ first }: { first?: number }) => ({
      nodes: shop.webhookSubscriptions.filter((s) => s.clientId === grant.clientId).slice(0, first ?? 50).map((s) => ({ id: gid('WebhookSubscription', s.id), topic: s.topic, uri: s.uri, format: 'JSON' })),
    }),

    draftOrderCreate: ({ input }: { input: DraftOrderInput }) => {
      need(ctx, 'draftOrderCreate', 'write_draft_orders');
      const { draft, userErrors } = createDraftOrder(state, shop, grant.clientId, input);
      const notReady = draft ? takeDraftFault(ctx, 'notReady') : undefined;
      if (draft && notReady) draft.notReadyReads = notReady.reads;
      if (draft) hangIfFaulted(ctx, 'draftOrderCreate');
      return { draftOrder: draft ? draftJson(shop, draft) : null, userErrors };
    },
    draftOrderCalculate: ({ input }: { input: DraftOrderInput }) => {
      need(ctx, 'draftOrderCalculate', 'write_draft_orders');
      const { draft, userErrors } = calculateDraftOrder(state, shop, grant.clientId, input);
      if (!draft) return { calculatedDraftOrder: null, userErrors };
      const t = draftTotals(shop, draft);
      const country = typeof draft.shippingAddress?.countryCode === 'string' ? draft.shippingAddress.countryCode : '';
      const rate = shop.taxes.rates[country];
      return {
        calculatedDraftOrder: {
          currencyCode: shop.currency, presentmentCurrencyCode: draft.currency,
          subtotalPriceSet: bag(t.subtotal, draft.currency), totalShippingPriceSet: bag(t.shipping, draft.currency),
          totalTaxSet: bag(t.tax, draft.currency), taxesIncluded: t.taxesIncluded, totalPriceSet: bag(t.total, draft.currency),
          taxLines: t.tax > 0 && rate !== undefined ? [{ title: `${country} VAT`, rate: rate / 100, ratePercentage: rate, priceSet: bag(t.tax, draft.currency) }] : [],
        },
        userErrors: [],
      };
    },
    draftOrderComplete: ({ id, paymentPending }: { id: string; paymentPending?: boolean }) => {
      need(ctx, 'draftOrderComplete', 'write_draft_orders');
      const d = draftOf(id);
      if (!d) return { draftOrder: null, userErrors: [{ field: ['id'], message: 'Draft order does not exist' }] };
      const refused = completionRefusal(d);
      if (refused.length) return { draftOrder: draftJson(shop, d), userErrors: refused };
      const inFlight = takeDraftFault(ctx, 'inFlight');
      if (inFlight) {
        // "Completion in flight": the commit takes commitMs, its answer is lost at once; meanwhile the draft reads
        // OPEN with no order and another completion is refused.
        d.completing = true;
        setTimeout(() => {
          d.completing = false;
          completeDraftOrder(state, shop, d, { paymentPending: paymentPending === true });
        }, inFlight.commitMs).unref();
        ctx.hangMs = 1;
        return { draftOrder: null, userErrors: [] };
      }
      const userErrors = completeDraftOrder(state, shop, d, { paymentPending: paymentPending === true });
      if (userErrors.length === 0 && takeDraftFault(ctx, 'commitThenError')) {
        // Committed; the answer is Shopify's internal error (its shape as Shopify sends it: message with the request id).
        const requestId = randomHex(16);
        throw new GraphQLError(`Internal error. Looks like something went wrong on our end.\nRequest ID: ${requestId} (include this in support requests).`, { extensions: { code: 'INTERNAL_SERVER_ERROR', requestId } });
      }
      if (userErrors.length === 0) hangIfFaulted(ctx, 'draftOrderComplete');
      return { draftOrder: draftJson(shop, d), userErrors };
    },
    refundCreate: ({ input }: { input: RefundInput }, _ctx: unknown, info: GraphQLResolveInfo) => {
      need(ctx, 'refundCreate', 'write_orders');
      const key = idempotencyKeyOf(info);
      if (!key) {
        throw new GraphQLError('The @idempotent directive is required for this mutation.', { extensions: { code: 'BAD_REQUEST' } });
      }
      const n = idOf('Order', input.orderId);
      const order = n === null ? undefined : shop.orders.get(n);
      if (!order) return { order: null, refund: null, userErrors: [{ field: ['orderId'], message: 'Order does not exist' }] };
      // The same key replays the first refund; with other variables it is refused (shopify.dev/docs/api/usage/implementing-idempotency).
      const fingerprint = JSON.stringify(input);
      const scoped = `${grant.clientId}:${key}`;
      const seen = shop.idempotencyKeys.get(scoped);
      if (seen) {
        if (seen.fingerprint !== fingerprint) throw new GraphQLError('The idempotency key was already used with different parameters.', { extensions: { code: 'IDEMPOTENCY_KEY_PARAMETER_MISMATCH' } });
        const first = order.refunds.find((r) => r.id === seen.refundId);
        return { order: orderJson(order), refund: first ? refundJson(order, first) : null, userErrors: [] };
      }
      const { refund, userErrors } = createRefund(state, order, input);
      if (!refund) return { order: orderJson(order), refund: null, userErrors };
      shop.idempotencyKeys.set(scoped, { fingerprint, refundId: refund.id });
      hangIfFaulted(ctx, 'refundCreate');
      queueRefundWebhook(ctx, order, refund);
      return { order: orderJson(order), refund: refundJson(order, refund), userErrors: [] };
    },
    storefrontAccessTokenCreate: ({ input }: { input: { title: string } }) => {
      const mine = [...state.storefrontTokens.values()].filter((t) => t.shop === shop.host && t.clientId === grant.clientId);
      if (mine.length >= MAX_STOREFRONT_TOKENS) return { storefrontAccessToken: null, shop: shopJson(shop), userErrors: [{ field: ['input'], message: 'Maximum number of storefront access tokens reached' }] };
      const token = { shop: shop.host, clientId: grant.clientId, id: state.nextId(), title: input.title, scopes: grant.scopes.filter((s) => s.startsWith('unauthenticated_')), createdAt: new Date().toISOString() };
      const accessToken = randomHex(16);
      state.storefrontTokens.set(accessToken, token);
      return {
        storefrontAccessToken: { id: gid('StorefrontAccessToken', token.id), accessToken, title: token.title, accessScopes: token.scopes.map((handle) => ({ handle })), createdAt: token.createdAt },
        shop: shopJson(shop),
        userErrors: [],
      };
    },
    delegateAccessTokenCreate: ({ input }: { input: { delegateAccessScope: string[]; expiresIn?: number | null } }) => ({ ...createDelegateToken(state, grant, input), shop: shopJson(shop) }),
    webhookSubscriptionCreate: ({ topic, webhookSubscription }: { topic: string; webhookSubscription: { uri?: string | null; callbackUrl?: string | null } }) => {
      const scope = WEBHOOK_SCOPES[topic];
      if (scope) need(ctx, 'webhookSubscriptionCreate', scope);
      const uri = webhookSubscription.uri ?? webhookSubscription.callbackUrl ?? '';
      let url: URL | undefined;
      try {
        url = new URL(uri);
      } catch {
        url = undefined;
      }
      // Shopify requires https; the sandbox also takes plain http on loopback for local runs.
      const local = url?.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
      if (!url || (url.protocol !== 'https:' && !local)) return { webhookSubscription: null, userErrors: [{ field: ['webhookSubscription', 'callbackUrl'], message: 'Address is invalid' }] };
      if (shop.webhookSubscriptions.some((s) => s.clientId === grant.clientId && s.topic === topic && s.uri === uri)) {
        return { webhookSubscription: null, userErrors: [{ field: ['webhookSubscription', 'callbackUrl'], message: 'Address for this topic has already been taken' }] };
      }
      const sub = { id: state.nextId(), clientId: grant.clientId, topic, uri };
      shop.webhookSubscriptions.push(sub);
      return { webhookSubscription: { id: gid('WebhookSubscription', sub.id), topic, uri, format: 'JSON' }, userErrors: [] };
    },
    metafieldsSet: ({ metafields }: { metafields: Array<{ ownerId: string; namespace?: string | null; key: string; value: string; type?: string | null }> }) => {
      const owner = gid('AppInstallation', install.installationId);
      const errors = metafields.flatMap((m, i) => (m.ownerId === owner ? [] : [{ field: ['metafields', String(i), 'ownerId'], message: 'Owner does not exist or is not accessible', code: 'INVALID_VALUE' }]));
      if (errors.length) return { metafields: null, userErrors: errors };
      const store = shop.appMetafields.get(grant.clientId) ?? new Map<string, { type: string; value: string }>();
      shop.appMetafields.set(grant.clientId, store);
      const saved = metafields.map((m) => {
        const namespace = m.namespace ?? `app--${grant.clientId}`;
        const type = m.type ?? store.get(`${namespace}.${m.key}`)?.type ?? 'single_line_text_field';
        store.set(`${namespace}.${m.key}`, { type, value: m.value });
        return { namespace, key: m.key, value: m.value, type };
      });
      return { metafields: saved, userErrors: [] };
    },
    scriptTagCreate: () => {
      need(ctx, 'scriptTagCreate', 'write_script_tags');
      // Since 2026-10-01 on every API version (shopify.dev/changelog/online-store-script-tags-deprecation).
      return { scriptTag: null, userErrors: [{ field: null, message: 'Script tags are deprecated and can no longer be created. Use an app embed block in a theme app extension instead.' }] };
    },
    scriptTagDelete: ({ id }: { id: string }) => {
      need(ctx, 'scriptTagDelete', 'write_script_tags');
      const n = idOf('ScriptTag', id);
      const tag = n === null ? undefined : shop.scriptTags.get(n);
      if (!tag || tag.clientId !== grant.clientId) return { deletedScriptTagId: null, userErrors: [{ field: ['id'], message: 'Script tag does not exist' }] };
      shop.scriptTags.delete(tag.id);
      return { deletedScriptTagId: id, userErrors: [] };
    },
  };
}

/** Shopify tells subscribed apps of every refund, the ones they made included (after the mutation answered). */
function queueRefundWebhook(ctx: AdminContext, order: SimOrder, refund: SimRefund): void {
  const emit = ctx.state.emitWebhook;
  if (emit) setImmediate(() => emit(ctx.shop, { topic: 'refunds/create', orderId: order.id, refundId: refund.id }));
}

/** Takes one of the shop's queued draft order faults, if any is left. */
function takeDraftFault<K extends keyof DraftFaults>(ctx: AdminContext, key: K): DraftFaults[K] | undefined {
  const fault = ctx.state.draftFaults.get(ctx.shop.host)?.[key];
  if (!fault || fault.count <= 0) return undefined;
  fault.count -= 1;
  return fault;
}

/** The "commit, then time out" fault: the write above stays done, the answer never comes. */
function hangIfFaulted(ctx: AdminContext, mutation: string): void {
  const left = ctx.state.commitThenTimeout.get(mutation);
  if (!left) return;
  if (left.count > 1) ctx.state.commitThenTimeout.set(mutation, { ...left, count: left.count - 1 });
  else ctx.state.commitThenTimeout.delete(mutation);
  ctx.hangMs = left.hangMs;
}

/** Shopify's query cost (approximation of its documented rules): objects 1, connections first × children + 2, mutations 10. */
function queryCost(schema: GraphQLSchema, doc: DocumentNode, variables: Record<string, unknown>): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of doc.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const argInt = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
  const costOf = (set: SelectionSetNode, type: GraphQLCompositeType): number => {
    let total = 0;
    for (const sel of set.selections) {
      if (sel.kind === Kind.INLINE_FRAGMENT || sel.kind === Kind.FRAGMENT_SPREAD) {
        const frag = sel.kind === Kind.FRAGMENT_SPREAD ? fragments.get(sel.name.value) : sel;
        if (!frag) continue;
        const on = frag.typeCondition ? schema.getType(frag.typeCondition.name.value) : type;
        if (on && (isObjectType(on) || isAbstractType(on))) total += costOf(frag.selectionSet, on as GraphQLCompositeType);
        continue;
      }
      if (!isObjectType(type) && !('getFields' in type)) continue;
      const field = 'getFields' in type ? type.getFields()[sel.name.value] : undefined;
      if (!field || !sel.selectionSet) continue;
      const named = getNamedType(field.type) as GraphQLCompositeType;
      const firstArg = sel.arguments?.find((a) => a.name.value === 'first');
      const first = firstArg ? (firstArg.value.kind === Kind.INT ? Number(firstArg.value.value) : firstArg.value.kind === Kind.VARIABLE ? argInt(variables[firstArg.value.name.value]) : undefined) : undefined;
      const inner = costOf(sel.selectionSet, named);
      total += first !== undefined ? 2 + first * Math.max(inner, 1) : 1 + inner;
    }
    return total;
  };
  let cost = 0;
  for (const def of doc.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    if (def.operation === 'mutation') cost += 10 * def.selectionSet.selections.length;
    else cost += costOf(def.selectionSet, schema.getQueryType()!);
  }
  return Math.max(cost, 1);
}

function bucketOf(state: State, key: string): Bucket {
  let b = state.buckets.get(key);
  if (!b) state.buckets.set(key, (b = { maximumAvailable: 2000, currentlyAvailable: 2000, restoreRate: 100, updatedAt: Date.now() }));
  const now = Date.now();
  b.currentlyAvailable = Math.min(b.maximumAvailable, b.currentlyAvailable + ((now - b.updatedAt) / 1000) * b.restoreRate);
  b.updatedAt = now;
  return b;
}
export const bucketKey = (shop: string, clientId: string) => `${shop}|${clientId}`;

interface GraphqlBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

function parseRequest(schema: GraphQLSchema, body: GraphqlBody): { doc: DocumentNode; variables: Record<string, unknown>; operationName?: string } | { errors: unknown[] } {
  if (typeof body?.query !== 'string') return { errors: [{ message: 'No query string was present' }] };
  let doc: DocumentNode;
  try {
    doc = parse(body.query);
  } catch (err) {
    return { errors: [(err as GraphQLError).toJSON()] };
  }
  const invalid = validate(schema, doc);
  if (invalid.length) return { errors: invalid.map((e) => e.toJSON()) };
  const variables = body.variables && typeof body.variables === 'object' ? (body.variables as Record<string, unknown>) : {};
  return { doc, variables, operationName: typeof body.operationName === 'string' ? body.operationName : undefined };
}

type GqlRequest = FastifyRequest<{ Params: { shop: string; version: string }; Body: GraphqlBody }>;

export function registerGraphql(app: FastifyInstance, state: State, base: (request: FastifyRequest) => string): void {
  app.post('/shops/:shop/admin/api/:version/graphql.json', async (request: GqlRequest, reply: FastifyReply) => {
    const shop = requireShop(state, request.params.shop, 'json');
    if (!VERSION.test(request.params.version)) throw new PlatformError(404, { errors: 'Not Found' });
    const token = request.headers['x-shopify-access-token'];
    const grant = typeof token === 'string' ? state.tokens.get(token) : undefined;
    if (!grant || grant.shop !== shop.host || !shop.installs.has(grant.clientId) || (grant.expiresAt ?? Infinity) <= Date.now()) {
      throw new PlatformError(401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    }
    reply.header('x-shopify-api-version', servedVersion(request.params.version));
    const parsed = parseRequest(adminSchema, request.body);
    if ('errors' in parsed) return { errors: parsed.errors };

    const bucket = bucketOf(state, bucketKey(shop.host, grant.clientId));
    const requested = queryCost(adminSchema, parsed.doc, parsed.variables);
    const throttleStatus = () => ({ maximumAvailable: bucket.maximumAvailable, currentlyAvailable: Math.floor(bucket.currentlyAvailable), restoreRate: bucket.restoreRate });
    if (requested > bucket.currentlyAvailable) {
      return {
        errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' } }],
        extensions: { cost: { requestedQueryCost: requested, actualQueryCost: null, throttleStatus: throttleStatus() } },
      };
    }
    bucket.currentlyAvailable -= requested;
    const ctx: AdminContext = { state, shop, grant, hangMs: null };
    const result = await execute({ schema: adminSchema, document: parsed.doc, rootValue: adminRoot(ctx), contextValue: ctx, variableValues: parsed.variables, operationName: parsed.operationName });
    if (ctx.hangMs !== null) {
      // Committed above; the caller's time-out strikes before any answer, then the connection drops.
      const hangMs = ctx.hangMs;
      reply.hijack();
      setTimeout(() => reply.raw.destroy(), hangMs).unref();
      return reply;
    }
    return {
      ...(result.errors ? { errors: result.errors.map((e) => e.toJSON()) } : {}),
      ...(result.data ? { data: result.data } : {}),
      extensions: { cost: { requestedQueryCost: requested, actualQueryCost: requested, throttleStatus: throttleStatus() } },
    };
  });

  app.post('/shops/:shop/api/:version/graphql.json', async (request: GqlRequest, reply: FastifyReply) => {
    const shop = requireShop(state, request.params.shop, 'json');
    if (!VERSION.test(request.params.version)) throw new PlatformError(404, { errors: 'Not Found' });
    // Public or private token, bot protection and throttle faults: storefront-access.ts.
    const token = admitStorefrontRequest(state, shop, request, reply);
    reply.header('x-shopify-api-version', servedVersion(request.params.version));
    if (token === 'throttled') return { errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED' } }] };
    const parsed = parseRequest(storefrontSchema, request.body);
    if ('errors' in parsed) return { errors: parsed.errors };
    const root = {
      cart: ({ id }: { id: string }) => {
        if (!token.scopes.includes('unauthenticated_read_checkouts')) {
          throw new GraphQLError('Access denied for cart field. Required access: `unauthenticated_read_checkouts` access scope.', { extensions: { code: 'ACCESS_DENIED' } });
        }
        const m = /^gid:\/\/shopify\/Cart\/(.+)$/.exec(id);
        const internal = m ? cartTokenOf(shop, m[1]!) : undefined;
        return internal === undefined ? null : cartJson(shop, internal, base(request));
      },
      // The shopper's cart emptied line by line (the online store's cart is the Storefront API's cart).
      cartLinesRemove: ({ cartId, lineIds }: { cartId: string; lineIds?: string[] | null }) => {
        if (!token.scopes.includes('unauthenticated_write_checkouts')) {
          throw new GraphQLError('Access denied for cartLinesRemove field. Required access: `unauthenticated_write_checkouts` access scope.', { extensions: { code: 'ACCESS_DENIED' } });
        }
        const m = /^gid:\/\/shopify\/Cart\/(.+)$/.exec(cartId);
        const internal = m ? cartTokenOf(shop, m[1]!) : undefined;
        if (internal === undefined) return { cart: null, userErrors: [{ code: 'INVALID', field: ['cartId'], message: 'The specified cart does not exist.' }], warnings: [] };
        const lines = shop.carts.get(internal) ?? [];
        const variants = (lineIds ?? []).map((lineId) => {
          const v = /^gid:\/\/shopify\/CartLine\/(\d+)-/.exec(lineId);
          return v ? Number(v[1]) : NaN;
        });
        const unknown = (lineIds ?? []).findIndex((_, i) => !lines.some((l) => l.variantId === variants[i]));
        if (unknown >= 0) return { cart: cartJson(shop, internal, base(request)), userErrors: [{ code: 'INVALID_MERCHANDISE_LINE', field: ['lineIds', String(unknown)], message: 'The merchandise line was not found in the cart.' }], warnings: [] };
        for (const variantId of variants) shop.carts.change(internal, variantId, 0);
        return { cart: cartJson(shop, internal, base(request)), userErrors: [], warnings: [] };
      },
    };
    const result = await execute({ schema: storefrontSchema, document: parsed.doc, rootValue: root, variableValues: parsed.variables, operationName: parsed.operationName });
    return { ...(result.errors ? { errors: result.errors.map((e) => e.toJSON()) } : {}), ...(result.data ? { data: result.data } : {}) };
  });
}

function cartJson(shop: SimShop, token: string, baseUrl: string) {
  const publicToken = `c1-${token}?key=${shop.cartKeys.get(token)}`;
  const currency = shop.currency;
  const lines = (shop.carts.get(token) ?? []).flatMap((line) => {
    const found = findVariant(shop, line.variantId);
    if (!found) return [];
    const { product, variant } = found;
    const total = variant.price * line.quantity;
    return [{
      __typename: 'CartLine',
      id: `gid://shopify/CartLine/${variant.id}-${token.slice(0, 8)}?cart=c1-${token}`,
      quantity: line.quantity,
      attributes: [],
      cost: { amountPerQuantity: money(variant.price, currency), compareAtAmountPerQuantity: null, subtotalAmount: money(total, currency), totalAmount: money(total, currency) },
      merchandise: {
        __typename: 'ProductVariant',
        id: gid('ProductVariant', variant.id),
        title: variant.title ?? 'Default Title',
        sku: variant.sku,
        availableForSale: true,
        requiresShipping: true,
        price: money(variant.price, currency),
        image: { url: imageUrl(baseUrl, shop, product), altText: product.title },
        product: { id: gid('Product', product.id), title: product.title, handle: product.handle },
      },
    }];
  });
  const subtotal = (shop.carts.get(token) ?? []).reduce((n, l) => n + (findVariant(shop, l.variantId)?.variant.price ?? 0) * l.quantity, 0);
  const now = new Date().toISOString();
  return {
    id: `gid://shopify/Cart/${publicToken}`,
    createdAt: now,
    updatedAt: now,
    totalQuantity: lines.reduce((n, l) => n + l.quantity, 0),
    note: null,
    checkoutUrl: `https://${primaryDomainOf(shop).host}/cart/c/${publicToken}`,
    attributes: [],
    discountCodes: [],
    buyerIdentity: { email: null, phone: null, countryCode: shop.country },
    cost: { subtotalAmount: money(subtotal, currency), totalAmount: money(subtotal, currency), subtotalAmountEstimated: false, totalAmountEstimated: true },
    lines: () => ({ nodes: lines, pageInfo: { hasNextPage: false, endCursor: null } }),
  };
}

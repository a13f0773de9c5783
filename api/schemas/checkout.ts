// Public checkout shapes (create, session status, session bundle, extras): one source for validation,
// serialization and the OpenAPI document. Money is always integer minor units of an ISO currency.
import { z } from 'zod';
import { shippingAddressSchema } from '../../domain/address.js';
import { STORE_ORDER_STATES } from '../../domain/checkout/store-order.js';
import { CHECKOUT_STATUSES } from '../../domain/checkout/checkout-status.js';
import { SESSION_TOKEN_PATTERN } from '../../domain/tokens.js';
import { branding, storePolicy } from './merchant.js';
import { PIXEL_EVENTS, PIXEL_PLATFORMS } from '../../domain/checkout/pixels.js';
import { emailAddress, trimmed, webUrlPattern } from './text.js';
import { shopHost } from './storefront-a.js';

// ---------------------------------------------------------------------------------------------------
// POST /api/checkout/create. Strict at every level: a cart never carries prices (they come from the store),
// so a body that tries to send one is refused rather than silently ignored.

/** The platform's numeric ids, as the plugin sends them (numbers) or as strings of digits. */
const storeId = z
  .union([z.number().int().positive(), z.string().regex(/^\d{1,20}$/, 'must be a numeric id')])
  .transform(String);

/** The store's language for the cart as the store names it ("de", "pt-BR", WordPress's "de_DE"). */
const storeLocaleTag = z.string().regex(/^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$/, 'must be a locale such as en_US').max(35);

/** The storefront A branch; the shop host's suffix is configuration (STOREFRONT_A_SHOP_SUFFIX). */
export const storefrontACreateBodyFor = (shopSuffix: string) =>
  z.strictObject({
    platform: z.literal('storefront-a'),
    shop: shopHost(shopSuffix).describe(`The shop host, e.g. demo-shop${shopSuffix}`),
    cartToken: trimmed(/^[\x21-\x7e]{1,256}$/, 'must be a cart token').describe("The shopper's cart token at the store"),
    locale: storeLocaleTag.optional().describe("The language the shopper browses the store in (the app embed's Liquid request.locale.iso_code, e.g. de or pt-BR): the checkout page speaks it first when it can"),
  });
export type StorefrontACreateBody = z.output<ReturnType<typeof storefrontACreateBodyFor>>;

export const storefrontBCreateBody = z.strictObject({
  platform: z.literal('storefront-b'),
  storeUrl: trimmed(webUrlPattern(['http', 'https']), 'must be the store URL (http(s)://host/…)', { max: 2048 }).describe('The store URL, as connected'),
  cart: z.strictObject({
    items: z
      .array(
        z.strictObject({
          productId: storeId,
          variationId: storeId.optional(),
          quantity: z.number().int().min(1).max(999),
        }),
      )
      .min(1, 'the cart is empty')
      .max(100)
      .describe('Quantities from the plugin; prices are re-read from the store'),
    currency: z.string().optional().describe("Informational: prices are in the store's own currency, read over REST"),
  }),
  locale: storeLocaleTag.optional().describe("The shopper's locale as WordPress reports it (determine_locale()): the checkout page speaks it first when it can"),
  handoffId: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, 'must be 16-64 letters, digits, - or _').optional()
    .describe('A random id the plugin makes for each handoff (1.2.0+), signed with the body: a signed handoff carrying one is accepted once (a copy answers 409 HANDOFF_REPLAYED naming the first checkout). Without one (older plugins) two shoppers\' identical carts in the same second sign alike, so such handoffs are not deduplicated'),
});

/** The create body for this shop host suffix (no component id: the schema differs with configuration). */
export const createCheckoutBodyFor = (shopSuffix: string) =>
  z
    .discriminatedUnion('platform', [storefrontACreateBodyFor(shopSuffix), storefrontBCreateBody])
    .describe('A storefront A cart (sent by the script tag) or a storefront B cart (sent by the official plugin)');

export const createCheckoutResponse = z
  .object({
    token: z.string().describe('The session token (unguessable bearer secret)'),
    checkoutUrl: z.string().describe("The hosted checkout page on the merchant's checkout origin"),
  })
  .meta({ id: 'CreateCheckoutResult' });

export const passthroughResponse = z
  .object({ passthrough: z.literal(true) })
  .describe("The merchant's plan does not include the hosted checkout: continue the store's native checkout")
  .meta({ id: 'CheckoutPassthrough' });

// ---------------------------------------------------------------------------------------------------
// The shopper's details.

export const shopperEmail = emailAddress('enter a valid email address');
/** One of the session's shipping rates (their ids are in the session bundle); another answers INVALID_INPUT. */
export const shippingRateId = z.uuid('choose a shipping rate').describe('The id of one of the session\'s shipping rates (session-bundle `shipping`)');

// ---------------------------------------------------------------------------------------------------
// Read paths.

/**
 * A session token in the path: cs_… (a checkout) or prev_… (a preview), 32 base64url characters after the prefix.
 * Any other value is no session: the routes answer 404 NOT_FOUND for it without a database read.
 */
export const tokenParams = z.object({
  token: z.string().meta({ pattern: SESSION_TOKEN_PATTERN.source }).describe('Session token: cs_… (checkout) or prev_… (preview); anything else is not found (404)'),
});

export const money = z
  .object({ amount: z.number().int().describe('Integer minor units'), currency: z.string().length(3) })
  .meta({ id: 'Money' });

export const checkoutStatus = z.enum(CHECKOUT_STATUSES);

/** The order on the merchant's store, apart from the session status (domain/checkout/store-order.ts). */
export const storeOrder = z
  .object({
    state: z.enum(STORE_ORDER_STATES).describe(
      'pending: the payment is settled and the order is being created on the store (retried while the store is down); ' +
        'created: it is on the store; failed: the store refused it for good',
    ),
    id: z.string().nullable().describe("The store's order id, once created"),
    number: z.string().nullable().describe('The order\'s name on the store ("#1001"), once created: the number the merchant, the shopper and the emails use'),
    error: z.string().nullable().describe('Why the store refused it (failed only), written for the merchant'),
  })
  .meta({ id: 'StoreOrder' });

export const sessionStatusResponse = z
  .object({
    token: z.string(),
    status: checkoutStatus,
    currency: z.string(),
    totalMinor: z.number().int().nullable().describe('Items + shipping, once the shopper chose a rate'),
    paymentUrl: z.string().nullable().describe("The processor's hosted payment page, once a payment started"),
    storeOrderId: z.string().optional().describe('The order on the store, once created'),
    storeOrder: storeOrder
      .omit({ error: true })
      .nullable()
      .describe('The order on the store, once the session is paid (COMPLETED, COD_CONFIRMED, REFUNDED): COMPLETED alone does not mean it exists yet; null before'),
  })
  .meta({ id: 'CheckoutSessionStatus' });

export const cartLine = z.object({
  productId: z.string(),
  variantId: z.string().nullable(),
  title: z.string(),
  variantTitle: z.string().nullable(),
  quantity: z.number().int(),
  unitPrice: z.number().int().describe('Minor units of the session currency, as read from the store'),
  imageUrl: z.string().nullable(),
});

export const shippingQuote = z.object({
  id: z.string(),
  name: z.string(),
  price: money.describe('In the session currency (zero when free)'),
  free: z.boolean().describe('Show a free label'),
  // Before the optional `reason`: the compiled serializer writes required properties first, zod in schema order.
  countries: z
    .array(z.string())
    .nullable()
    .describe('The countries this rate ships to (ISO codes); null: where the store ships (`storeCountries`). List it only for an address there'),
  deliveryDays: z.object({ min: z.number().int(), max: z.number().int() }).nullable().describe("The merchant's delivery estimate in business days; null: none given"),
  reason: z.enum(['free_rate', 'threshold']).optional(),
});

/** A tracking pixel as the checkout page loads it (the merchant's active pixels; none on previews). */
export const pixelConfig = z
  .object({
    platform: z.enum(PIXEL_PLATFORMS),
    trackingId: z.string(),
    events: z.array(z.enum(PIXEL_EVENTS)).describe('Fire these; `purchase` with the session token as event id (once per session)'),
  })
  .meta({ id: 'PixelConfig' });

export const shippingAddress = shippingAddressSchema;

export const sessionBundleResponse = z
  .object({
    token: z.string(),
    status: checkoutStatus,
    currency: z.string(),
    preview: z.boolean().describe('A preview session (prev_…): placeholder cart, payment disabled'),
    cart: z.object({ items: z.array(cartLine), subtotal: money }),
    shopName: z.string(),
    shopUrl: z
      .string()
      .nullable()
      .describe("The shop's storefront, for the way back from the checkout: storefront A's primary domain, storefront B's store URL; null when no store is connected"),
    branding,
    checkoutTexts: z.record(z.string(), z.string()),
    codEnabled: z.boolean().describe('Cash on delivery is offered: the merchant switched it on and its plan has it'),
    recoveryOptIn: z
      .boolean()
      .nullable()
      .describe('Abandoned-checkout reminders: null while the merchant has them off (no consent box); else whether the shopper ticked the box (unticked by default; PUT recovery-consent records it)'),
    storeCountries: z
      .array(z.string())
      .nullable()
      .describe('Where the rates whose `countries` is null ship: the countries the store ships to; null: every country'),
    shipping: z.array(shippingQuote).describe("The merchant's rates converted with the session's FX snapshot, cheapest first. The page's country list is the countries some rate ships to; init-payment and complete-cod refuse an address elsewhere (INVALID_INPUT on address.country) or a rate that does not ship there (on shippingRateId)"),
    pixels: z.array(pixelConfig).describe('The merchant\'s active tracking pixels (empty on previews); `purchase` fires with the session token as event id'),
    storePolicies: z
      .array(storePolicy)
      .describe(
        "The store's policy pages (refund, shipping, privacy, terms, …) as last read from it, in the store's titles and in the order to list them: " +
          'the page links to each at its foot, on every screen. Empty when the store has none published or they were never read',
      ),
    shopper: z
      .object({
        email: z.string().nullable(),
        address: shippingAddress.nullable(),
        billingAddress: shippingAddress.nullable().describe('The billing address given apart from the shipping address at the last init-payment or complete-cod; null: billed to the shipping address'),
        shippingRateId: z.string().nullable(),
        discountCode: z.string().nullable().describe('The code applied at the last init-payment'),
        discountMinor: z.number().int().describe('What that code took off at the last init-payment, in minor units (0 without a code): the page shows it until it checks the code again'),
        orderBumpIds: z.array(z.string()).describe('Order bumps accepted at the last init-payment'),
      })
      .describe('What the shopper entered so far on this session'),
  })
  .meta({ id: 'CheckoutSessionBundle' });

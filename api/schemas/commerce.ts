// The checkout's commercial extras: discount codes, order bumps, upsells and tracking pixels. Merchant CRUD
// shapes (amounts in EUR cents, like shipping rates) and what the checkout page is served (amounts in the
// session currency). One source for validation, serialization and the OpenAPI document.
import { z } from 'zod';
import { DISCOUNT_CODE_PATTERN } from '../../domain/checkout/discounts.js';
import { PIXEL_EVENTS, PIXEL_ID_FORMATS, PIXEL_PLATFORMS, type PixelPlatform } from '../../domain/checkout/pixels.js';
import { money, pixelConfig, shippingRateId, shopperEmail } from './checkout.js';
import { fetchedUrl, text, trimmed, unanchored } from './text.js';

export const idParams = z.object({ id: z.uuid('must be an id') });

/** The store's own numeric ids (both platforms use numbers). */
const storeId = trimmed(/^\d{1,20}$/, 'must be the store\'s numeric id');
const eurCents = (max: number) => z.number().int().min(0).max(max);
/**
 * Shown to shoppers' browsers. The route fetches it once through the SSRF guard, as the logo (api/image-url.ts):
 * https (so a checkout page never loads mixed content) or one of the origins the URL guard allows (the local
 * sandbox's own pictures), on a public address, answering an image.
 */
const imageUrlFor = (allowedOrigins: readonly string[]) => fetchedUrl(2048, allowedOrigins)
  .describe('https URL of the product picture on a public address (checked when saved: it must answer an image)');
const position = z.number().int().min(0).max(1000).describe('Order on the checkout page, lowest first');
const timestamps = { createdAt: z.string(), updatedAt: z.string() };

// ---------------------------------------------------------------------------------------------------
// Discount codes.

/** What a shopper types: any short text (an unknown one answers DISCOUNT_UNKNOWN, not a format error). */
export const discountCodeInput = text(64, { required: 'enter a discount code' });
export const orderBumpIds = z.array(z.uuid('must be an order bump id')).max(10);

export const discountType = z.enum(['percentage', 'fixed_amount']);

/** A code as the merchant types it: any letter case, whitespace around it (stored trimmed and upper-case). */
const discountCode = trimmed(new RegExp(`^${unanchored(DISCOUNT_CODE_PATTERN).replaceAll('A-Z', 'A-Za-z')}$`), '3-40 letters, digits, "-" or "_"')
  .toUpperCase()
  .describe('Case-insensitive; stored upper-case');

const discountFields = {
  minimumSubtotalCents: eurCents(100_000_000).nullable().describe('Merchandise subtotal (items + order bumps) the code needs, EUR cents, converted').optional(),
  usageLimit: z.number().int().min(1).max(10_000_000).nullable().describe('Completed checkouts that may use it; null: unlimited').optional(),
  oncePerEmail: z.boolean().describe('One completed checkout per shopper email').optional(),
  expiresAt: z.iso.datetime({ offset: true }).nullable().describe('From this instant on the code is refused').optional(),
  active: z.boolean().describe('Off: the code answers DISCOUNT_UNKNOWN').optional(),
};

/** A type needs its own amount field and not the other's (checked after a PATCH is merged with the stored code). */
export function discountAmountProblem(d: { type: 'percentage' | 'fixed_amount'; percentOff?: number | null; amountOffCents?: number | null }): Record<string, string> | undefined {
  if (d.type === 'percentage') {
    if (d.percentOff == null) return { 'body.percentOff': 'required for a percentage code' };
    if (d.amountOffCents != null) return { 'body.amountOffCents': 'only for fixed_amount codes' };
  } else {
    if (d.amountOffCents == null) return { 'body.amountOffCents': 'required for a fixed_amount code' };
    if (d.percentOff != null) return { 'body.percentOff': 'only for percentage codes' };
  }
  return undefined;
}

/** A field this branch must not carry (the document states it as `not: {}`), with the message that says why. */
const absent = (message: string) => z.never({ error: message }).optional();
/** zod's message when the value is missing; its own for a wrong value. */
const required = (message: string) => ({ error: (issue: { input: unknown }) => (issue.input === undefined ? message : undefined) });
const percentOff = z.number(required('required for a percentage code')).int().min(1).max(100).describe('percentage codes: 1-100');
const amountOffCents = z
  .number(required('required for a fixed_amount code'))
  .int()
  .min(1)
  .max(10_000_000)
  .describe('fixed_amount codes: EUR cents, converted into the checkout currency with the session\'s FX snapshot');

/** One branch per type: a percentage code carries percentOff, a fixed_amount code amountOffCents, never the other. */
export const discountCreate = z.discriminatedUnion('type', [
  z.strictObject({ code: discountCode, type: z.literal('percentage'), percentOff, amountOffCents: absent('only for fixed_amount codes'), ...discountFields }),
  z.strictObject({ code: discountCode, type: z.literal('fixed_amount'), amountOffCents, percentOff: absent('only for percentage codes'), ...discountFields }),
]);

/**
 * Fields not sent keep their value. Within the body: never both amount fields, and a type sent with the other
 * type's amount field is refused (stated as JSON Schema too). Against the stored code, checked by the route:
 * a new type needs its own amount field, and an amount field without a type must be the stored type's.
 */
export const discountPatch = z
  .strictObject({ code: discountCode.optional(), type: discountType.optional(), percentOff: percentOff.optional(), amountOffCents: amountOffCents.optional(), ...discountFields })
  .superRefine((d, ctx) => {
    if (d.percentOff !== undefined && (d.amountOffCents !== undefined || d.type === 'fixed_amount')) ctx.addIssue({ code: 'custom', path: ['percentOff'], message: 'only for percentage codes' });
    else if (d.amountOffCents !== undefined && d.type === 'percentage') ctx.addIssue({ code: 'custom', path: ['amountOffCents'], message: 'only for fixed_amount codes' });
  })
  .meta({
    not: { required: ['percentOff', 'amountOffCents'] },
    allOf: [
      { if: { required: ['type'], properties: { type: { const: 'percentage' } } }, then: { not: { required: ['amountOffCents'] } } },
      { if: { required: ['type'], properties: { type: { const: 'fixed_amount' } } }, then: { not: { required: ['percentOff'] } } },
    ],
  });

export const discountView = z
  .object({
    id: z.string(),
    code: z.string(),
    type: discountType,
    percentOff: z.number().int().nullable(),
    amountOffCents: z.number().int().nullable(),
    minimumSubtotalCents: z.number().int().nullable(),
    usageLimit: z.number().int().nullable(),
    oncePerEmail: z.boolean(),
    expiresAt: z.string().nullable(),
    active: z.boolean(),
    timesUsed: z.number().int().describe('Completed checkouts (COMPLETED or COD_CONFIRMED) that used it, each counted once'),
    ...timestamps,
  })
  .meta({ id: 'DiscountCode' });

export const validateDiscountBody = z
  .object({
    code: discountCodeInput,
    email: shopperEmail.optional().describe('Needed to check once-per-email codes'),
    shippingRateId: shippingRateId.optional().describe('When given, the total includes this rate'),
    orderBumpIds: orderBumpIds.optional().describe('Order bumps ticked so far: part of the subtotal the code applies to'),
  })
  .strict();

export const validateDiscountResponse = z
  .object({
    code: z.string().describe('The code as applied (upper-case)'),
    type: discountType,
    subtotal: money.describe('Items + ticked order bumps, before the discount'),
    discount: money.describe('Taken off the subtotal; never more than it, never off shipping'),
    shipping: money.nullable().describe('The chosen rate (null when no shippingRateId was given)'),
    total: money.describe('subtotal − discount + shipping: the amount init-payment will charge'),
  })
  .meta({ id: 'DiscountValidation' });

// ---------------------------------------------------------------------------------------------------
// Order bumps: one extra product offered on the checkout page, ticked with one click.

const bumpFieldsFor = (allowedOrigins: readonly string[]) => ({
  productId: storeId.describe('The store\'s product id (the store order gets this line)'),
  variantId: storeId.nullable().describe('The store\'s variant (storefront A) or variation (storefront B) id').optional(),
  title: text(120, { required: 'enter a title' }),
  description: text(500).nullable().optional(),
  imageUrl: imageUrlFor(allowedOrigins).nullable().optional(),
  priceCents: eurCents(10_000_000).describe('The bump price, EUR cents, converted into the checkout currency'),
  compareAtCents: eurCents(10_000_000).nullable().describe('A higher regular price shown struck through: above priceCents (the stored one when a PATCH leaves it out)').optional(),
  active: z.boolean().optional(),
  position: position.optional(),
});

/** Create and PATCH bodies; the image URL rules depend on the origins the URL guard allows. */
export function orderBumpInputsFor(allowedOrigins: readonly string[]) {
  const fields = bumpFieldsFor(allowedOrigins);
  return {
    create: z.object(fields).strict(),
    patch: z.object({ ...fields, productId: fields.productId.optional(), title: fields.title.optional(), priceCents: fields.priceCents.optional() }).strict(),
  };
}

/** What the merchant sees of a bump and what a checkout is offered, before their prices. */
const bumpShown = {
  id: z.string(),
  productId: z.string(),
  variantId: z.string().nullable(),
  title: z.string(),
  description: z.string().nullable(),
  imageUrl: z.string().nullable(),
};

export const orderBumpView = z
  .object({
    ...bumpShown,
    priceCents: z.number().int(),
    compareAtCents: z.number().int().nullable(),
    active: z.boolean(),
    position: z.number().int(),
    ...timestamps,
  })
  .meta({ id: 'OrderBump' });

export const orderBumpOffer = z
  .object({
    ...bumpShown,
    id: z.string().describe('Send it in init-payment orderBumpIds to accept the bump'),
    price: money.describe('In the session currency: what is added to the total'),
    compareAtPrice: money.nullable(),
  })
  .meta({ id: 'OrderBumpOffer' });

// ---------------------------------------------------------------------------------------------------
// Upsells: a one-click offer of a product at a discount, before confirming or after payment.

export const upsellPlacement = z.enum(['pre_confirm', 'post_purchase']);

const upsellFieldsFor = (allowedOrigins: readonly string[]) => ({
  placement: upsellPlacement.describe('pre_confirm: on the checkout before paying; post_purchase: on the confirmation page'),
  headline: text(120, { required: 'enter a headline' }),
  description: text(500).nullable().optional(),
  productId: storeId,
  variantId: storeId.nullable().optional(),
  title: text(120, { required: 'enter a title' }),
  imageUrl: imageUrlFor(allowedOrigins).nullable().optional(),
  priceCents: eurCents(10_000_000).describe('The product\'s regular price, EUR cents'),
  discountPercent: z.number().int().min(0).max(90).describe('Off the regular price in the offer').optional(),
  active: z.boolean().optional(),
  position: position.optional(),
});

/** Create and PATCH bodies; the image URL rules depend on the origins the URL guard allows. */
export function upsellInputsFor(allowedOrigins: readonly string[]) {
  const fields = upsellFieldsFor(allowedOrigins);
  return {
    create: z.object(fields).strict(),
    patch: z
      .object({
        ...fields,
        placement: fields.placement.optional(),
        headline: fields.headline.optional(),
        productId: fields.productId.optional(),
        title: fields.title.optional(),
        priceCents: fields.priceCents.optional(),
      })
      .strict(),
  };
}

/** What the merchant sees of an upsell and what a checkout is offered, before their prices. */
const upsellShown = {
  id: z.string(),
  placement: upsellPlacement,
  headline: z.string(),
  description: z.string().nullable(),
  productId: z.string(),
  variantId: z.string().nullable(),
  title: z.string(),
  imageUrl: z.string().nullable(),
};

export const upsellView = z
  .object({
    ...upsellShown,
    priceCents: z.number().int(),
    discountPercent: z.number().int(),
    active: z.boolean(),
    position: z.number().int(),
    ...timestamps,
  })
  .meta({ id: 'Upsell' });

export const upsellOffer = z
  .object({
    ...upsellShown,
    price: money.describe('The regular price in the session currency'),
    discountPercent: z.number().int(),
    offerPrice: money.describe('price − discountPercent, rounded half-up to minor units'),
  })
  .meta({ id: 'UpsellOffer' });

// ---------------------------------------------------------------------------------------------------
// Tracking pixels.

export const pixelPlatform = z.enum(PIXEL_PLATFORMS);
export const pixelEvents = z
  .array(z.enum(PIXEL_EVENTS))
  .min(1, 'choose at least one event')
  .max(PIXEL_EVENTS.length)
  .refine((events) => new Set(events).size === events.length, 'each event once')
  .meta({ uniqueItems: true });

/** A tracking id in `platform`'s published format (domain/checkout/pixels.ts), whitespace around it dropped. */
const trackingIdOf = (platform: PixelPlatform) => {
  const { pattern, example } = PIXEL_ID_FORMATS[platform];
  return trimmed(pattern, `not a ${platform} id (expected the format of ${example})`).describe(`The ${platform} id, e.g. ${example}`);
};
/** Any platform's format: a PATCH keeps the stored platform, whose format the route checks. */
const anyTrackingId = trimmed(new RegExp(`^(?:${PIXEL_PLATFORMS.map((p) => unanchored(PIXEL_ID_FORMATS[p].pattern)).join('|')})$`), 'not a tracking id of any platform');

/** One branch per platform, each with its id format. */
const pixelBranches = PIXEL_PLATFORMS.map((platform) =>
  z.strictObject({ platform: z.literal(platform), trackingId: trackingIdOf(platform), events: pixelEvents.describe('Checkout events this pixel fires'), active: z.boolean().optional() }),
);
export const pixelCreate = z.discriminatedUnion('platform', pixelBranches as [(typeof pixelBranches)[number], ...typeof pixelBranches]);
export const pixelPatch = z
  .object({
    trackingId: anyTrackingId.optional().describe('In the format of the pixel\'s platform (it cannot change)'),
    events: pixelEvents.optional().describe('Checkout events this pixel fires'),
    active: z.boolean().optional(),
  })
  .strict();

export const pixelView = z
  .object({ id: z.string(), platform: pixelPlatform, trackingId: z.string(), events: z.array(z.string()), active: z.boolean(), ...timestamps })
  .meta({ id: 'TrackingPixel' });

export const pixelsResponse = z
  .object({
    items: z.array(pixelConfig),
    purchaseEventId: z.string().describe('The event id to send with `purchase`: the session token, so a reloaded confirmation page counts once'),
  })
  .meta({ id: 'CheckoutPixels' });

export const deletedResponse = z.object({ deleted: z.literal(true), id: z.string() });

export const list = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });

/** A checkout's upsell offers, and whether its post-purchase ones can be added with one click now. */
export const upsellOffers = list(upsellOffer)
  .extend({
    oneClick: z.boolean().describe(
      'true only on a COMPLETED checkout paid by card whose card the processor keeps for off-session charges. Whop keeps none paid on its hosted ' +
      'page in payment mode (how every card checkout is paid today), so this is false and the page shows no post_purchase offer (docs/commerce-extras.md).',
    ),
  })
  .meta({ id: 'CheckoutUpsells' });

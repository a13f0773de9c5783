// Merchant-facing shapes: one source for validation, serialization and the OpenAPI document.
import { z } from 'zod';

export const email = z.string().trim().toLowerCase().email('must be a valid email address').max(254);
export const phone = z
  .string()
  .trim()
  .regex(/^\+?[0-9 ()-]{6,20}$/, 'must be a phone number (digits, spaces, +, -, parentheses)');
export const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex color like #1a2b3c').transform((v) => v.toLowerCase());

export const CHECKOUT_TEXT_KEYS = ['headline', 'contactHeading', 'shippingHeading', 'paymentHeading', 'payButtonLabel', 'codButtonLabel', 'footerNote', 'successMessage'] as const;
export const checkoutTexts = z
  .object(Object.fromEntries(CHECKOUT_TEXT_KEYS.map((k) => [k, z.string().trim().max(300).optional()])) as Record<(typeof CHECKOUT_TEXT_KEYS)[number], z.ZodOptional<z.ZodString>>)
  .strict()
  .describe('Texts shown on the checkout page; unset keys use the defaults');

export const shippingRateInput = z
  .object({
    name: z.string().trim().min(1).max(60).describe('Visible to the shopper'),
    free: z.boolean().default(false).describe('When on, the price is ignored and the shopper sees a free label'),
    basePriceCents: z.number().int().min(0).max(1_000_000).describe('Price in EUR cents; converted into the checkout currency'),
    freeThresholdCents: z.number().int().min(0).max(100_000_000).nullable().optional().describe('Cart subtotals at or above this (EUR cents) ship free'),
  })
  .strict();
export const shippingRate = shippingRateInput.extend({ id: z.string(), freeThresholdCents: z.number().int().nullable() });

export const storePlatform = z.enum(['storefront-a', 'storefront-b']);

export const branding = z.object({
  logoUrl: z.string().nullable(),
  primaryColor: z.string().nullable(),
  accentColor: z.string().nullable(),
});

export const merchantView = z
  .object({
    id: z.string(),
    email: z.string(),
    emailVerified: z.boolean(),
    shopName: z.string(),
    phone: z.string(),
    slug: z.string(),
    checkoutOrigin: z.string().describe('Where this merchant\'s checkout pages are served'),
    shopDomain: z.string().nullable(),
    storePlatform: storePlatform.nullable(),
    codEnabled: z.boolean(),
    branding,
    checkoutTexts: z.record(z.string(), z.string()),
    shippingRates: z.array(shippingRate),
    onboardingCompletedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'Merchant' });

export const sessionResponse = z.object({
  token: z.string().describe('JWT (HS256, 30 days); also set as the HttpOnly session cookie'),
  merchant: merchantView,
});

export const publicConfig = z
  .object({
    slug: z.string(),
    shopName: z.string(),
    storePlatform: storePlatform.nullable(),
    codEnabled: z.boolean(),
    branding,
    checkoutTexts: z.record(z.string(), z.string()),
    shippingRates: z.array(shippingRate.omit({ id: true })).describe('In EUR cents; the checkout converts them'),
  })
  .meta({ id: 'PublicMerchantConfig' });

export const configPatch = z
  .object({
    branding: z
      .object({
        logoUrl: z.string().trim().max(2048).nullable().optional().describe('https URL of a PNG or SVG (60px high recommended); null removes it'),
        primaryColor: hexColor.nullable().optional(),
        accentColor: hexColor.nullable().optional(),
      })
      .strict()
      .optional(),
    checkoutTexts: checkoutTexts.optional(),
    codEnabled: z.boolean().optional(),
    shippingRates: z.array(shippingRateInput).max(20).optional().describe('Replaces the whole list, in this order'),
    onboardingCompletedAt: z.iso.datetime().nullable().optional().describe('Set by setup verification only: a timestamp keeps the recorded instant (SETUP_NOT_VERIFIED before verification passed); null re-opens the wizard'),
  })
  .strict();

export const accountPatch = z
  .object({
    email: email.optional(),
    phone: phone.optional(),
    newPassword: z.string().optional(),
    currentPassword: z.string().optional().describe('Required to change the email or the password'),
  })
  .strict();

export const shopPatch = z
  .object({
    shopName: z.string().trim().min(1).max(120).optional(),
    storePlatform: storePlatform.nullable().optional().describe('The platform chosen in wizard step 1'),
  })
  .strict();

export const ok = z.object({ ok: z.literal(true), message: z.string().optional() });

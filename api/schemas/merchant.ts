// Merchant-facing shapes: one source for validation, serialization and the OpenAPI document.
import { z } from 'zod';
import { MEMBER_ROLES } from '../../domain/merchant/roles.js';
import { caseless, chars, emailAddress, fetchedUrl, text, TRIMMED_CLASS, trimmed } from './text.js';
import { checkPasswordPolicy, COMMON_PASSWORDS, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../domain/merchant/password-policy.js';
import { RESERVED_SLUGS, SLUG_MAX, SLUG_MIN } from '../../domain/merchant/slug.js';
import { COUNTRY_CODES, knownCountries } from '../../domain/countries.js';
import { countryCode } from './countries.js';
import { FEATURE_AVAILABILITY, PLAN_FEATURES } from '../../domain/merchant/plan-features.js';
import { CHECKOUT_LANGUAGES, type CheckoutLanguage } from '../../domain/checkout/checkout-messages/index.js';
import { STORE_POLICY_KINDS, STORE_POLICY_TITLE_MAX } from '../../domain/merchant/store-policies.js';

export const email = emailAddress('must be a valid email address');
export const phone = trimmed(/^\+?[0-9 ()-]{6,20}$/, 'must be a phone number (6-20 digits, spaces, +, -, parentheses)');
/**
 * A new password: the policy of security/passwords.ts, stated in the document as far as JSON Schema can:
 * 10-200 characters (code points on both sides), not one character repeated, not a common password in any
 * letter case with spaces around it. "Not the account's email" compares with another value: the route checks
 * it and the description says so.
 */
export const newPassword = z
  .string()
  .superRefine((password, ctx) => {
    const problem = checkPasswordPolicy(password);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    minLength: MIN_PASSWORD_LENGTH,
    maxLength: MAX_PASSWORD_LENGTH,
    not: {
      anyOf: [
        { pattern: '^([\\s\\S])\\1*$' },
        { pattern: `^[${TRIMMED_CLASS}]*(?:${[...COMMON_PASSWORDS].map(caseless).join('|')})[${TRIMMED_CLASS}]*$` },
      ],
    },
  });

/**
 * A slug as typed: surrounding whitespace and any letter case (the route trims and lower-cases), then what
 * domain/merchant/slug.ts slugProblem accepts: 3-40 letters, digits and single inner hyphens, not a reserved name.
 * The route answers INVALID_SLUG (the spec's code) for anything else; this pattern states the same rule.
 */
export const slugInput = chars(100)
  .trim()
  .meta({
    pattern: `^[${TRIMMED_CLASS}]*(?=[A-Za-z0-9-]{${SLUG_MIN},${SLUG_MAX}}[${TRIMMED_CLASS}]*$)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*[${TRIMMED_CLASS}]*$`,
    not: { pattern: `^[${TRIMMED_CLASS}]*(?:${[...RESERVED_SLUGS].map(caseless).join('|')})[${TRIMMED_CLASS}]*$` },
  });

/** A password being checked, not set: anything up to 1000 characters. */
export const currentPassword = chars(1000);

export const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex color like #1a2b3c').transform((v) => v.toLowerCase());

export const CHECKOUT_TEXT_KEYS = ['headline', 'contactHeading', 'shippingHeading', 'paymentHeading', 'payButtonLabel', 'codButtonLabel', 'footerNote', 'successMessage'] as const;
export const checkoutTexts = z
  .object(Object.fromEntries(CHECKOUT_TEXT_KEYS.map((k) => [k, text(300).optional()])) as Record<(typeof CHECKOUT_TEXT_KEYS)[number], z.ZodOptional<z.ZodString>>)
  .strict()
  .describe('Texts shown on the checkout page; unset keys use the defaults');

export const paymentPage = z
  .enum(['embedded', 'hosted'])
  .describe("Where shoppers pay by card: `embedded` inside the checkout page (the processor's embedded checkout, the default; the hosted page when it cannot load), `hosted` on the processor's own page");

/** The checkout texts per language of the page (en, de, fr, es, it, nl): a page in that language shows them. */
export const checkoutTextTranslations = z
  .object(Object.fromEntries(Object.keys(CHECKOUT_LANGUAGES).map((language) => [language, checkoutTexts.optional()])) as Record<CheckoutLanguage, z.ZodOptional<typeof checkoutTexts>>)
  .strict()
  .describe('The texts for a page in one language (en, de, fr, es, it, nl), over `checkoutTexts`; a key set to "" removes that text, so the page shows `checkoutTexts` or its own words');


/** Where a rate ships, as the API takes and answers it (stored as shipping_rates.all_store_countries + countries). */
export const rateCountries = z
  .union([
    z.literal('store').describe('Every country the store ships to (`storeCountries`), following the store when it changes'),
    z
      .array(countryCode)
      .min(1, 'choose at least one country, or every country the store ships to')
      .max(COUNTRY_CODES.length)
      .describe('These countries only (ISO 3166-1 alpha-2), answered de-duplicated in a fixed order'),
  ])
  // Outside the union: zod tells the branches apart by their input type only while they have no transform of their own,
  // and so names the field of a bad list instead of answering "Invalid input" for the union.
  .transform((countries) => (countries === 'store' ? countries : knownCountries(countries)))
  .describe('Where the rate ships: "store" (the default) or a list of countries. A checkout offers the countries some rate ships to, and refuses an address elsewhere.');

/** A delivery estimate in business days ("3-5 business days"); the same day twice says one number. */
const deliveryDays = z
  .object({
    min: z.number().int().min(0).max(90).describe('Fewest business days from order to delivery'),
    max: z.number().int().min(0).max(90).describe('Most business days (at least `min`)'),
  })
  .strict()
  .refine((d) => d.max >= d.min, { path: ['max'], message: 'must be at least the fewest days' })
  .describe('The delivery estimate the checkout shows with the rate, in business days');

export const shippingRateInput = z
  .object({
    name: text(60, { required: 'enter a name' }).describe('Visible to the shopper'),
    free: z.boolean().default(false).describe('When on, the price is ignored and the shopper sees a free label'),
    basePriceCents: z.number().int().min(0).max(1_000_000).describe('Price in EUR cents; converted into the checkout currency'),
    freeThresholdCents: z.number().int().min(0).max(100_000_000).nullable().optional().describe('Cart subtotals at or above this (EUR cents) ship free'),
    countries: rateCountries.default('store'),
    deliveryDays: deliveryDays.nullable().optional().describe('The delivery estimate the checkout shows with the rate, in business days; null or absent: none'),
  })
  .strict();
export const shippingRate = z.object({
  id: z.string(),
  name: z.string(),
  free: z.boolean(),
  basePriceCents: z.number().int(),
  freeThresholdCents: z.number().int().nullable(),
  countries: z.union([z.literal('store'), z.array(z.string())]).describe('"store": every country the store ships to; else these countries only'),
  deliveryDays: z.object({ min: z.number().int(), max: z.number().int() }).nullable().describe('The delivery estimate in business days; null: none'),
});

/** The countries the connected store ships to, as last read from it. */
export const storeCountriesView = z
  .object({
    countries: z.array(z.string()).describe('ISO codes; empty before the first read'),
    readAt: z.string().nullable().describe('When they were read; null: never, and rates that follow the store ship to every country until they are'),
    error: z.string().nullable().describe('Why the last read failed (the countries read before stay)'),
  })
  .meta({ id: 'StoreCountries' });

/** One of the store's policy pages, as kept and as the checkout's footer links to it. */
export const storePolicy = z
  .object({
    kind: z.enum(STORE_POLICY_KINDS).describe('Which policy: refund, shipping, privacy, terms (of service), terms_of_sale, subscription (cancellation), legal_notice, contact'),
    title: z.string().describe(`The store's title for it (trimmed, at most ${STORE_POLICY_TITLE_MAX} characters): the link's words`),
    url: z.string().describe('Its public page on the store (http or https only)'),
  })
  .meta({ id: 'StorePolicy' });

/** The store's policy pages, as last read from it. */
export const storePoliciesView = z
  .object({
    policies: z.array(storePolicy).describe('In the order the checkout lists them; empty before the first read or when the store has none published'),
    readAt: z.string().nullable().describe('When they were read; null: never'),
    error: z
      .string()
      .nullable()
      .describe('Why the last read failed (the policies read before stay: e.g. a storefront A shop installed before `read_legal_policies` was asked, a WooCommerce plugin older than 1.3.0), or what it left out; null after a clean read'),
  })
  .meta({ id: 'StorePolicies' });

/** What a refresh of the store's countries answers: the countries, and the policy pages read with them. */
export const storeCountriesRefreshView = storeCountriesView
  .extend({ policies: storePoliciesView })
  .meta({ id: 'StoreCountriesRefresh' });

/** The plan in force and what it lets the merchant use (domain/merchant/plan-features.ts). */
export const merchantPlan = z
  .object({
    id: z.string().describe('FREE (Demo) or the paid plan in force'),
    name: z.string(),
    features: z
      .object(
        Object.fromEntries(
          PLAN_FEATURES.map((f) => [
            f,
            z.object({
              availability: z.enum(FEATURE_AVAILABILITY).describe('live: shoppers get it; setup: it can be set up and previewed, nothing is live (Demo); none: not on this plan'),
              requiredPlan: z.string().describe('The plan to choose for it'),
              requiredPlanName: z.string(),
            }),
          ]),
        ) as Record<(typeof PLAN_FEATURES)[number], z.ZodObject<{ availability: z.ZodEnum<{ live: 'live'; setup: 'setup'; none: 'none' }>; requiredPlan: z.ZodString; requiredPlanName: z.ZodString }>>,
      ),
  })
  .meta({ id: 'MerchantPlan' });

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
    codEnabled: z.boolean().describe('As the merchant set it; checkouts offer it only while `plan.features.cod` is live'),
    branding,
    checkoutTexts: z.record(z.string(), z.string()),
    checkoutTextTranslations: z.record(z.string(), z.record(z.string(), z.string())).describe('The texts per page language, as set'),
    paymentPage: paymentPage,
    shippingRates: z.array(shippingRate),
    storeCountries: storeCountriesView,
    storePolicies: storePoliciesView.describe("The store's policy pages the checkout's footer links to, read with the countries"),
    plan: merchantPlan,
    onboardingCompletedAt: z.string().nullable(),
    createdAt: z.string(),
    viewer: z
      .object({
        memberId: z.string().nullable().describe('null: the account holder, or an API key'),
        email: z.string().describe('The person signed in (the account\'s email for the account holder and for keys)'),
        role: z.enum(MEMBER_ROLES),
        scopes: z.array(z.string()).describe('What the role may call, in the API keys\' scope vocabulary (docs/api.md)'),
        twoFactorEnabled: z.boolean(),
      })
      .optional()
      .describe('Who is calling: on GET /api/merchant/me'),
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
    codEnabled: z.boolean().describe('Whether checkouts offer cash on delivery (switched on, and the plan in force has it)'),
    branding,
    checkoutTexts: z.record(z.string(), z.string()),
    shippingRates: z
      .array(shippingRate.omit({ id: true, countries: true }).extend({ countries: z.array(z.string()).describe('The countries it ships to (ISO codes)') }))
      .describe('In EUR cents; the checkout converts them'),
  })
  .meta({ id: 'PublicMerchantConfig' });

/** PATCH /api/merchant/config; the logo URL rules depend on the origins the URL guard allows. */
export const configPatchFor = (allowedOrigins: readonly string[]) => z
  .object({
    branding: z
      .object({
        logoUrl: fetchedUrl(2048, allowedOrigins)
          .nullable()
          .optional()
          .describe('https URL of a PNG or SVG (60px high recommended), fetched when saved: it must answer 200 with image/png or image/svg+xml from a public address; null removes it'),
        primaryColor: hexColor.nullable().optional(),
        accentColor: hexColor.nullable().optional(),
      })
      .strict()
      .optional(),
    checkoutTexts: checkoutTexts.optional(),
    checkoutTextTranslations: checkoutTextTranslations.optional(),
    paymentPage: paymentPage.optional(),
    codEnabled: z.boolean().optional().describe('Switching it on needs a plan with cash on delivery (Growth; Demo to set up): else PLAN_FEATURE_REQUIRED (403), nothing changed'),
    shippingRates: z.array(shippingRateInput).max(20).optional().describe('Replaces the whole list, in this order'),
    onboardingCompletedAt: z.iso.datetime().nullable().optional().describe('Set by setup verification only: a timestamp keeps the recorded instant (SETUP_NOT_VERIFIED before verification passed); null re-opens the wizard'),
  })
  .strict();

export const accountPatch = z
  .object({
    email: email.optional(),
    phone: phone.optional(),
    newPassword: newPassword.optional().describe('Must not be the account\'s email (after this change)'),
    currentPassword: currentPassword.optional().describe('Required to change the email or the password'),
  })
  .strict();

export const shopPatch = z
  .object({
    shopName: text(120, { required: 'enter the shop name' }).optional(),
    storePlatform: storePlatform.nullable().optional().describe('The platform chosen in wizard step 1'),
  })
  .strict();

export const ok = z.object({ ok: z.literal(true), message: z.string().optional() });

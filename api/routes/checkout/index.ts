// The public checkout: creating a session from a store cart, and the read paths the checkout page uses.
// Create reads the cart from the store (never trusting a browser's prices), keeps an FX snapshot and inserts
// the session; its workflow (checkout-<token>) starts with the first action that needs it and owns the
// session from then on (api/checkout-workflow.ts). Create and the read paths are PostgreSQL only, never
// Temporal: they sit on the shopper's critical path.
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import { sqlPool, type Db, type Prisma } from '../../../prisma/client.js';
import type { z } from 'zod';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { AppError } from '../../../domain/errors.js';
import { INITIAL_STATUS, isCheckoutStatus } from '../../../domain/checkout/checkout-status.js';
import { MoneyError, money, type FxRates } from '../../../domain/money.js';
import { quoteShippingRates, type ShippingRateInput } from '../../../domain/shipping.js';
import { codOffered } from '../../../model/merchant/plan-features.js';
import { isPreviewToken, isSessionToken } from '../../../domain/tokens.js';
import { storeOrderOf } from '../../../domain/checkout/store-order.js';
import { sessionAddress, sessionBumpLines, sessionLines } from '../../../model/checkout/checkout-session.js';
import { limit } from '../../plugins/rate-limits.js';
import { errorResponse } from '../../schemas/common.js';
import { compiledSerializer } from '../../serialization.js';
import {
  createCheckoutBodyFor,
  createCheckoutResponse,
  passthroughResponse,
  sessionBundleResponse,
  sessionStatusResponse,
  tokenParams,
} from '../../schemas/checkout.js';
import { checkoutOriginWith } from '../../checkout-host.js';
import { HANDOFF_HEADERS, type Handoff } from '../../../integrations/storefront-b/handoff.js';
import { canonicalLanguage } from '../../../domain/language.js';
import { checkoutLanguageOf } from '../../../domain/checkout/checkout-messages/index.js';
import { acceptedLanguages } from '../../schemas/shopper-language.js';
import { addVary } from '../../vary.js';
import { claimHandoff, releaseHandoff, type HandoffHash } from '../../handoff-claims.js';
import { checkCurrency, createCreateCaches, newSessionToken, shouldPassThrough, storefrontASource, storefrontBSource, subtotalOf, verifiedHostnameOf, type CartDeps, type CartSource } from '../../cart-sources.js';

const tags = ['checkout'];
const noSession = () => new AppError('NOT_FOUND', 'No such checkout session');

const handoffBodies = new WeakMap<FastifyRequest, Buffer>();

/** The plugin's signature headers with the raw body they sign, when the request carries them. */
function handoffOf(request: FastifyRequest): Handoff | undefined {
  const header = (name: string) => {
    const v = request.headers[name];
    return typeof v === 'string' ? v : '';
  };
  const rawBody = handoffBodies.get(request);
  if (rawBody === undefined) return undefined;
  return { key: header(HANDOFF_HEADERS.key), timestamp: header(HANDOFF_HEADERS.timestamp), signature: header(HANDOFF_HEADERS.signature), rawBody };
}

export const checkoutPublicRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db } = deps;
  const cartDeps: CartDeps = { ...deps, caches: createCreateCaches(config) };

  /** A session token of the right shape, or 404 before any database read. */
  const token = (value: string) => {
    if (!isSessionToken(value)) throw noSession();
    return value;
  };

  app.post('/api/checkout/create', {
    config: limit(config, 'checkoutCreate'),
    schema: {
      tags,
      summary: 'Create a checkout session from a storefront A or storefront B cart',
      description:
        'Prices are read from the store (storefront A: the cart, with the merchant\'s access token; storefront B: every product ' +
        'and variation over REST); a body carrying anything else, prices included, is refused. 201: the session and the hosted ' +
        'checkout URL. 200 `{ passthrough: true }`: continue the store\'s native checkout (nothing is created). Errors: unknown or ' +
        'disconnected store, unknown cart: NOT_FOUND; empty cart or a product the store does not sell: INVALID_INPUT; a currency the processor cannot ' +
        'charge in (its currency list) or without an exchange rate: UNSUPPORTED_CURRENCY; store failing: UPSTREAM_ERROR, too slow: STORE_TIMEOUT. ' +
        'On any error the script tag and the plugin continue to the native checkout. Dedicated rate limiter. ' +
        'Storefront B: only our plugin creates sessions, and it signs every handoff (headers x-hosted-checkout-key, x-hosted-checkout-timestamp ' +
        '(unix seconds, within 5 minutes), x-hosted-checkout-signature: v1=hex HMAC-SHA256 of "<timestamp>.<raw body>" with the connected ' +
        'consumer secret). A storefront B create without these headers, or whose signature does not verify, answers 401 UNAUTHORIZED and ' +
        'creates nothing; a verified one records the plugin\'s interception (setup verification). Each signed handoff makes one checkout: ' +
        'a copy of a handoff carrying the plugin\'s handoffId (same signature) answers 409 HANDOFF_REPLAYED with details { token, checkoutUrl } of the first one, which the plugin sends the shopper to.',
      body: createCheckoutBodyFor(config.storefrontA.shopSuffix),
      response: {
        200: passthroughResponse,
        201: createCheckoutResponse,
        400: errorResponse,
        401: errorResponse,
        404: errorResponse,
        409: errorResponse,
        422: errorResponse,
        429: errorResponse,
        502: errorResponse,
        504: errorResponse,
      },
    },
    // The plugin's signature covers the exact bytes it sent: keep them before the JSON parser runs.
    preParsing: async (request, _reply, payload) => {
      if (request.headers[HANDOFF_HEADERS.signature] === undefined) return payload;
      // Read with the stream's events (an async iterator costs more, on every create).
      const raw = await new Promise<Buffer>((resolve, reject) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const onData = (chunk: Buffer) => {
          size += chunk.length;
          if (size <= config.api.bodyLimit) return void chunks.push(chunk);
          // Nothing more is kept: the stream stops here (the server discards the rest once the 413 is sent).
          payload.off('data', onData);
          payload.pause();
          reject(new AppError('PAYLOAD_TOO_LARGE', 'The request body is too large'));
        };
        payload.on('data', onData);
        payload.once('end', () => resolve(Buffer.concat(chunks, size)));
        payload.once('error', reject);
      });
      handoffBodies.set(request, raw);
      return Object.assign(Readable.from([raw]), { receivedEncodedLength: raw.length });
    },
  }, async (request, reply) => {
    const body = request.body;
    const source = body.platform === 'storefront-a' ? await storefrontASource(cartDeps, body, { ip: request.ip }) : await storefrontBSource(cartDeps, body, handoffOf(request));
    const { merchant, platform } = source;
    if (shouldPassThrough(merchant)) return reply.code(200).send({ passthrough: true as const });
    const checkoutUrlOf = (token: string) => `${checkoutOriginWith(config, merchant.slug, verifiedHostnameOf(merchant))}/checkout/${token}`;

    // A signed handoff makes one checkout: a copy of it is sent to the first one's (api/handoff-claims.ts).
    let handoff: HandoffHash | undefined;
    if (source.handoffSignature !== undefined) {
      const claim = await claimHandoff(db, merchant.id, source.handoffSignature);
      if (!claim.claimed) {
        throw new AppError(
          'HANDOFF_REPLAYED',
          claim.sessionToken ? 'This signed handoff already made a checkout: continue with it (details.checkoutUrl)' : 'This signed handoff is already making a checkout: send a new handoff',
          claim.sessionToken ? { token: claim.sessionToken, checkoutUrl: checkoutUrlOf(claim.sessionToken) } : undefined,
        );
      }
      handoff = claim.hash;
    }
    try {
      // The store's language for this cart (storefront A: the storefront's locale; storefront B: WordPress's, "de_DE" →
      // "de-DE"): the page speaks it first.
      const storeLocale = body.locale ? canonicalLanguage(body.locale) : null;
      const made = await createSession(source, merchant, platform, storeLocale, handoff);
      return reply.code(201).send({ token: made, checkoutUrl: checkoutUrlOf(made) });
    } catch (err) {
      if (handoff) await releaseHandoff(db, handoff).catch((e: unknown) => request.log.warn({ err: e }, 'checkout create: the handoff claim could not be given back'));
      throw err;
    }
  });

  /**
   * Reads the cart, prices it and writes the session with its 'created' event (and names it on the handoff's claim);
   * answers its token.
   */
  async function createSession(source: CartSource, merchant: CartSource['merchant'], platform: CartSource['platform'], storeLocale: string | null, handoff: HandoffHash | undefined): Promise<string> {
    const cart = await source.readCart();
    const { fx } = source;
    checkCurrency(cart.currency, fx.snapshot);
    let subtotalMinor: number;
    try {
      subtotalMinor = subtotalOf(cart.items, cart.currency).amount;
    } catch (err) {
      if (err instanceof MoneyError) throw Object.assign(new AppError('UPSTREAM_ERROR', 'The store answered prices that cannot be charged'), { cause: err });
      throw err;
    }

    const sessionToken = newSessionToken();
    const createdEvent = { platform, lines: cart.items.length, currency: cart.currency, subtotalMinor, fxDate: fx.snapshot.date };
    await sqlPool(db).query({
      name: 'checkout-create',
      text: CREATE_SESSION_SQL,
      values: [sessionToken, merchant.id, platform, INITIAL_STATUS, cart.storeCartRef, cart.currency, fx.json, JSON.stringify(cart.items), subtotalMinor, storeLocale, JSON.stringify(createdEvent), handoff ? Buffer.from(handoff) : null],
    });
    await source.recordInterception?.();
    return sessionToken;
  }

  app.get('/api/checkout/session/:token', {
    schema: {
      tags,
      summary: 'Session status (no personal data), and the state of its order on the store',
      description:
        'COMPLETED: the processor confirmed the payment. The order on the store is created after that (retried while the store is down), ' +
        'so storeOrder says where it is: pending, created (with its id) or failed.',
      params: tokenParams,
      response: { 200: sessionStatusResponse, 404: errorResponse },
    },
  }, async (request, reply) => {
    const session = await db.checkoutSession.findUnique({
      where: { token: token(request.params.token) },
      select: { token: true, status: true, currency: true, totalMinor: true, paymentUrl: true, storeOrderId: true, storeOrderNumber: true, storeOrderError: true },
    });
    if (!session || !isCheckoutStatus(session.status)) throw noSession();
    reply.header('cache-control', 'no-store');
    // The shopper sees whether the order reached the store, not the store's reason for refusing it.
    const order = storeOrderOf(session);
    return {
      token: session.token,
      status: session.status,
      currency: session.currency,
      totalMinor: session.totalMinor,
      paymentUrl: session.paymentUrl,
      ...(session.storeOrderId ? { storeOrderId: session.storeOrderId } : {}),
      storeOrder: order && { state: order.state, id: order.id, number: order.number },
    };
  });

  app.get('/api/checkout/session-bundle/:token', {
    schema: {
      tags,
      summary: 'Everything the checkout page shows: cart, branding, shipping rates in the session currency, pixels',
      description:
        'Shipping: the merchant\'s EUR rates (and free-shipping thresholds) converted with the FX rates the session was created ' +
        'with, so they never move under the shopper; cheapest first. `shopper` is what was entered on this session so far ' +
        '(the token is the shopper\'s own unguessable link).',
      params: tokenParams,
      response: { 200: sessionBundleResponse, 404: errorResponse },
    },
    // The checkout page's hot read: its 200 answer is written by a serializer compiled from the schema above
    // (api/serialization.ts): the documented properties only, without re-validating with zod what the handler just
    // built from typed values. Errors keep the shared serializer.
    serializerCompiler: (route) => (route.httpStatus === '200' ? bundleSerializer : serializerCompiler(route as unknown as Parameters<typeof serializerCompiler>[0])),
  }, async (request, reply) => {
    // The merchant's texts for a page in the language it asks in (the page sends the language it shows), over the
    // texts as written; the page's own words fill whatever neither gives. The read brings that language's only.
    const language = checkoutLanguageOf(acceptedLanguages(request.headers['accept-language']));
    const session = await readBundle(db, token(request.params.token), language);
    if (!session || !isCheckoutStatus(session.status)) throw noSession();
    const { currency } = session;
    const subtotal = money(session.subtotalMinor, currency);
    const preview = isPreviewToken(session.token);
    reply.header('cache-control', 'no-store');
    addVary(reply, 'Accept-Language');
    return {
      token: session.token,
      status: session.status,
      currency,
      preview,
      cart: { items: sessionLines(session.items), subtotal },
      shopName: session.shopName,
      shopUrl: session.shopUrl,
      branding: { logoUrl: session.logoUrl, primaryColor: session.primaryColor, accentColor: session.accentColor },
      checkoutTexts: { ...checkoutTexts(session.checkoutTexts), ...checkoutTexts(session.checkoutTextTranslation) },
      // Offered only while the plan in force has it (a preview on Demo shows what is set up). The plan is read only for
      // a merchant with cash on delivery switched on: for the others the answer is false whatever the plan.
      codEnabled: codOffered({ codEnabled: session.codEnabled, platformSubscription: session.planId === null ? null : { planId: session.planId, status: session.planStatus ?? '' } }, { preview }),
      recoveryOptIn: session.recoveryOptIn,
      shipping: quoteShippingRates(session.parts.shippingRates, { currency, subtotal, fxRates: session.fxRate ?? NO_RATES }),
      // Said once for the rates that follow the store (a quote's countries null); null when that is every country.
      storeCountries: session.parts.storeCountries,
      // A preview fires no tracking: the merchant's ad platforms would count a checkout nobody made.
      pixels: preview ? [] : session.parts.pixels,
      // Checked when they were read from the store (domain/merchant/store-policies.ts): http(s) addresses, capped titles.
      storePolicies: session.storePolicies,
      shopper: {
        email: session.email,
        address: sessionAddress(session.shippingAddress),
        billingAddress: sessionAddress(session.billingAddress, 'billing address'),
        shippingRateId: session.shippingRateId,
        discountCode: session.discountCode,
        discountMinor: session.discountCode ? session.discountMinor : 0,
        orderBumpIds: sessionBumpLines(session.orderBumps).map((b) => b.bumpId),
      },
    };
  });
  // Upsells, pixels, order bumps and validate-discount: routes/checkout/extras.ts.
};

// ---------------------------------------------------------------------------------------------------
// Create's write: one statement, one round trip.

/**
 * The session, its 'created' event and, for a signed handoff ($12, its signature's hash; null without one), the
 * claim naming the session it made (api/handoff-claims.ts), all in one statement: a named (prepared) statement on
 * the pool under Prisma, as the bundle's read below.
 */
const CREATE_SESSION_SQL = `
  WITH s AS (
    INSERT INTO checkout_sessions (token, merchant_id, platform, status, source, store_cart_ref, currency, fx_rates, items, subtotal_minor, store_locale, updated_at)
    VALUES ($1, $2::uuid, $3::"StorePlatform", $4, 'store_cart', $5, $6, $7::jsonb, $8::jsonb, $9, $10, now())
    RETURNING token, created_at
  ), e AS (
    INSERT INTO session_events (id, token, type, data, at) SELECT gen_random_uuid(), token, 'created', $11::jsonb, created_at FROM s
  )
  UPDATE storefront_b_handoffs h SET session_token = s.token FROM s WHERE $12::bytea IS NOT NULL AND h.signature_hash = $12::bytea`;

// ---------------------------------------------------------------------------------------------------
// The session bundle: one round trip to PostgreSQL, no re-validation of what we just built.

/** What the bundle reads: the session, its merchant's public fields and checkout parts (rates, pixels). */
interface BundleRow {
  token: string;
  status: string;
  currency: string;
  items: Prisma.JsonValue;
  subtotalMinor: number;
  /**
   * The one rate of the session's FX snapshot that its quotes use, the session currency's (shipping rates are in EUR,
   * the snapshot's base), as `{ [currency]: rate }`; null when the snapshot has none (an EUR session).
   */
  fxRate: FxRates | null;
  email: string | null;
  shippingAddress: Prisma.JsonValue;
  billingAddress: Prisma.JsonValue;
  shippingRateId: string | null;
  discountCode: string | null;
  discountMinor: number;
  orderBumps: Prisma.JsonValue;
  shopName: string;
  shopUrl: string | null;
  logoUrl: string | null;
  primaryColor: string | null;
  accentColor: string | null;
  checkoutTexts: Prisma.JsonValue;
  /** The merchant's texts in the page's language (checkout_text_translations' entry for it), null without one. */
  checkoutTextTranslation: Prisma.JsonValue;
  codEnabled: boolean;
  /** Null while the merchant has recovery off (no box shown); else whether this session's shopper consented. */
  recoveryOptIn: boolean | null;
  /**
   * merchants.checkout_parts: kept by database triggers, see prisma/schema.prisma. `storeCountries`: what the store
   * ships to (rates that follow the store ship there), said once per checkout: null when never read or every country
   * (as before zones); kept there by a trigger on the merchant row (migration 20261129170000_bundle_store_countries),
   * so the read neither decompresses the 250-code array nor has node-postgres parse a text[] (far slower than JSON).
   */
  parts: { shippingRates: ShippingRateInput[]; pixels: BundleAnswer['pixels']; storeCountries: string[] | null };
  /** merchants.store_policies: the store's policy pages, checked on the way in (model/merchant/store-countries.ts). */
  storePolicies: BundleAnswer['storePolicies'];
  /** The subscription row's plan and status; null without one (Demo), and not read while cash on delivery is off. */
  planId: string | null;
  planStatus: string | null;
}

/**
 * One statement, primary-key lookups only, and only those the answer needs: the session by its token, its merchant by
 * id, the store connection of the session's platform (for the shop's URL: storefront A's first origin is its primary
 * domain, as the install and every domain change record them; storefront B's store URL), and the subscription only when
 * the merchant has cash on delivery switched on (the plan in force decides whether it is offered; the lateral subquery
 * runs behind a one-time filter, and OFFSET 0 keeps the planner from flattening it into a join that would look the row
 * up anyway). Of the session's FX snapshot only the session currency's rate, of the merchant's translations only the
 * page language's ($2). The merchant's shipping
 * rates (in position order, ties by id) and active tracking pixels come aggregated in merchants.checkout_parts,
 * which triggers on those tables recompute in the same transaction as every change: the bundle never shows parts
 * older than its own snapshot, and nothing of it (the status least of all) is served from a cache. Aggregating
 * them here instead cost PostgreSQL twice the CPU of the bare primary-key read per request.
 *
 * Sent as a named (prepared) statement on the pool under Prisma: planned once per connection, and without
 * Prisma's per-query cost, which is about that of the query itself (scripts/bench/session-bundle.ts measures both).
 */
const BUNDLE_SQL = `
    SELECT s.token, s.status, s.currency, s.items, s.subtotal_minor AS "subtotalMinor",
           CASE WHEN jsonb_typeof(s.fx_rates -> 'rates') = 'object' AND s.fx_rates -> 'rates' ? s.currency
                THEN jsonb_build_object(s.currency, s.fx_rates -> 'rates' -> s.currency) END AS "fxRate",
           s.email,
           s.shipping_address AS "shippingAddress", s.billing_address AS "billingAddress", s.shipping_rate_id AS "shippingRateId",
           s.discount_code AS "discountCode", s.discount_minor AS "discountMinor", s.order_bumps AS "orderBumps",
           CASE WHEN m.recovery_enabled THEN s.recovery_consent_at IS NOT NULL END AS "recoveryOptIn",
           m.shop_name AS "shopName", m.logo_url AS "logoUrl", m.primary_color AS "primaryColor", m.accent_color AS "accentColor",
           m.checkout_texts AS "checkoutTexts", m.checkout_text_translations -> $2 AS "checkoutTextTranslation", m.cod_enabled AS "codEnabled", m.checkout_parts AS "parts",
           CASE s.platform WHEN 'STOREFRONT_A' THEN (SELECT COALESCE(a.shop_origins[1], 'https://' || a.shop) FROM storefront_a_connections a WHERE a.merchant_id = s.merchant_id)
                ELSE (SELECT b.store_url FROM storefront_b_connections b WHERE b.merchant_id = s.merchant_id) END AS "shopUrl",
           m.store_policies AS "storePolicies",
           p.plan_id AS "planId", p.status AS "planStatus"
    FROM checkout_sessions s JOIN merchants m ON m.id = s.merchant_id
      LEFT JOIN LATERAL (SELECT p.plan_id, p.status FROM platform_subscriptions p WHERE p.merchant_id = s.merchant_id AND m.cod_enabled OFFSET 0) p ON true
    WHERE s.token = $1`;

async function readBundle(db: Db, sessionToken: string, language: string): Promise<BundleRow | undefined> {
  const { rows } = await sqlPool(db).query<BundleRow>({ name: 'checkout-session-bundle', text: BUNDLE_SQL, values: [sessionToken, language] });
  return rows[0];
}

const NO_RATES: FxRates = {};

type BundleAnswer = z.output<typeof sessionBundleResponse>;

function checkoutTexts(value: Prisma.JsonValue): Record<string, string> {
  const texts: Record<string, string> = {};
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, text] of Object.entries(value)) if (typeof text === 'string') texts[key] = text;
  }
  return texts;
}

/** Stored JSON (cart lines, address) may hold more than the schema shows: the serializer writes only what it documents. */
const bundleSerializer = compiledSerializer(sessionBundleResponse);

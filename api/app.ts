// buildApp(deps): the whole HTTP API without listening, so tests drive it with `inject` and server.ts
// runs it for real. Plugins first (errors, limits, CORS, docs), then one route plugin per resource group.
import { memberRoutes } from './routes/merchant/members.js';
import { securityRoutes } from './routes/merchant/security.js';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { clientErrorHandler, errorsPlugin, frameworkErrors } from './plugins/errors.js';
import { validatorCompiler } from './validation.js';
import { corsPlugin } from './plugins/cors.js';
import { requestLimitsPlugin } from './plugins/request-limits.js';
import { openapiPlugin } from './plugins/openapi.js';
import { commonAnswersPlugin } from './plugins/common-answers.js';
import { methodNotAllowedPlugin } from './plugins/method-not-allowed.js';
import { authPlugin } from './plugins/auth.js';
import { rateLimitsPlugin } from './plugins/rate-limits.js';
import { idempotencyPlugin } from './plugins/idempotency.js';
import { apiKeyRoutes } from './routes/merchant/api-keys.js';
import { healthRoutes } from './routes/health/index.js';
import { authRoutes } from './routes/auth/index.js';
import { merchantRoutes } from './routes/merchant/index.js';
import { processorRoutes } from './routes/merchant/processor.js';
import { storefrontBRoutes } from './routes/merchant/storefront-b.js';
import { storeCountriesRoutes } from './routes/merchant/store-countries.js';
import { storefrontAAuthRoutes } from './routes/auth/storefront-a.js';
import { storefrontAMerchantRoutes } from './routes/merchant/storefront-a.js';
import { scriptTagRoutes } from './routes/merchant/script-tag.js';
import { domainRoutes } from './routes/merchant/domain.js';
import { onboardingRoutes } from './routes/merchant/onboarding.js';
import { storefrontAWebhookRoutes } from './routes/webhooks/storefront-a.js';
import { storefrontBWebhookRoutes } from './routes/webhooks/storefront-b.js';
import { checkoutPaymentRoutes } from './routes/checkout/payment.js';
import { checkoutCodRoutes } from './routes/checkout/cod.js';
import { orderActionRoutes } from './routes/orders/actions.js';
import { previewRoutes } from './routes/merchant/preview.js';
import { checkoutExtrasRoutes } from './routes/checkout/extras.js';
import { merchantCommerceRoutes } from './routes/merchant/commerce.js';
import { checkoutPublicRoutes } from './routes/checkout/index.js';
import { processorWebhookRoutes } from './routes/webhooks/processor.js';
import { billingRoutes } from './routes/billing/index.js';
import { billingWebhookRoutes } from './routes/billing/webhook.js';
import { checkoutProgressRoutes } from './routes/checkout/progress.js';
import { checkoutRecoveryRoutes } from './routes/checkout/recovery.js';
import { checkoutQuoteRoutes } from './routes/checkout/quote.js';
import { checkoutAddressRulesRoutes } from './routes/checkout/address-rules.js';
import { ordersRoutes } from './routes/orders/index.js';
import { orderExportRoutes } from './routes/orders/export.js';
import { customerRoutes } from './routes/orders/customers.js';
import { notificationRoutes } from './routes/merchant/notifications.js';
import { statsRoutes } from './routes/merchant/stats.js';
import { recoverySettingsRoutes } from './routes/merchant/recovery.js';
import { merchantWebhookRoutes } from './routes/merchant/webhooks.js';
import { pagesRoutes } from './routes/pages/index.js';
import { resolveDeps, type AppDeps } from './route-deps.js';
import { createCustomDomainHostCheck, createShopOriginCheck } from './checkout-host.js';
import { tlsPermissionRoutes } from './routes/internal/tls-permission.js';

// Route groups' prefixes: a group's routes are written relative to theirs (`/me` is GET /api/merchant/me).
const AUTH = '/api/auth';
const MERCHANT = '/api/merchant';
const MERCHANT_WEBHOOKS = '/api/merchant/webhooks';
const ORDERS = '/api/checkout/merchant';
const BILLING = '/api/platform-billing';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;
/** Query parameters that carry secrets (handoff tokens, OAuth codes, link tokens): never logged. */
const SECRET_PARAMS = ['handoff', 'code', 'hmac', 'state', 'token', 'access_token'];

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of SECRET_PARAMS) if (params.has(name)) params.set(name, '[redacted]');
  return `${url.slice(0, q)}?${params.toString()}`;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: deps.logger ?? {
      level: config.logLevel,
      redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-processor-signature"]'],
      serializers: {
        req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url), remoteAddress: req.ip }),
      },
    },
    bodyLimit: config.api.bodyLimit,
    // What Fastify and Node answer by themselves (bad URL encoding, over-long path parameter, malformed HTTP) as `{ error, code }` too.
    frameworkErrors,
    clientErrorHandler,
    trustProxy: config.api.trustProxy,
    requestIdHeader: false,
    // Keep a caller's request id when it looks like one, so a request can be followed across services.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Both names: x-request-id as before, Request-Id as Stripe's API (which merchants' tooling knows) calls it.
  // Synchronous hooks (done callback) where nothing is awaited: an async hook costs every request a promise and a
  // microtask for nothing (docs/operations.md, the session bundle).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    reply.header('request-id', request.id);
    done();
  });

  // Behind the TLS edge, the dashboard's origin tells browsers to use https only (a year). Only there: a checkout
  // origin (a merchant's own checkout.<domain>) is the merchant's name, and HSTS on it would outlive our service.
  const dashboardHost = new URL(config.appOrigin).host;
  if (config.publicHttps && config.appOrigin.startsWith('https:')) {
    app.addHook('onRequest', (request, reply, done) => {
      if (request.headers.host?.toLowerCase() === dashboardHost) reply.header('strict-transport-security', 'max-age=31536000');
      done();
    });
  }

  await app.register(errorsPlugin);
  await app.register(requestLimitsPlugin, { bodyLimit: config.api.bodyLimit });
  await app.register(corsPlugin, {
    appOrigin: config.appOrigin,
    serviceDomain: config.serviceDomain,
    storefrontAShopSuffix: config.storefrontA.shopSuffix,
    allowHttp: config.env !== 'production',
    extraOrigins: config.sandbox.enabled ? Object.values(config.sandbox.urls) : [],
    // Verified custom checkout domains and their apex (cached reads of custom_domains).
    isCustomDomainHost: createCustomDomainHostCheck(deps.db),
    // The connected Shopify shops' own domains (shoppers browse on www.merchant.com, not *.myshopify.com).
    isShopOrigin: createShopOriginCheck(deps.db),
  });
  await app.register(openapiPlugin, { serverUrl: config.api.publicUrl });
  await app.register(commonAnswersPlugin);
  await app.register(methodNotAllowedPlugin);
  const routeDeps = resolveDeps(deps);
  /** A route group's options: the dependencies, and the prefix its routes' paths are relative to. */
  const under = (prefix: string) => ({ ...routeDeps, prefix });
  // Rate limits first: the auth plugin counts each API key's requests as it authenticates them.
  await app.register(rateLimitsPlugin, { redisUrl: config.redisUrl, apiKey: config.rateLimits.apiKey, failures: { auth: config.rateLimits.authFailures, webhook: config.rateLimits.webhookFailures } });
  await app.register(authPlugin, { db: deps.db, secret: config.jwtSecret!, secureCookie: config.publicHttps, appOrigin: config.appOrigin, apiKeyMode: config.apiKeyMode });
  await app.register(idempotencyPlugin, { db: deps.db, secrets: routeDeps.secrets });

  await app.register(healthRoutes, { db: deps.db, temporal: deps.temporal });
  await app.register(tlsPermissionRoutes, routeDeps);
  await app.register(authRoutes, under(AUTH));
  await app.register(merchantRoutes, under(MERCHANT));
  await app.register(processorRoutes, under(MERCHANT));
  await app.register(storefrontBRoutes, under(MERCHANT));
  await app.register(storeCountriesRoutes, under(MERCHANT));
  await app.register(storefrontAAuthRoutes, routeDeps);
  await app.register(storefrontAMerchantRoutes, under(MERCHANT));
  await app.register(scriptTagRoutes, under(MERCHANT));
  await app.register(domainRoutes, under(MERCHANT));
  await app.register(onboardingRoutes, under(MERCHANT));
  // Encapsulated (no fastify-plugin): its raw-body JSON parser must not replace the app's own.
  await app.register(storefrontAWebhookRoutes, routeDeps);
  await app.register(storefrontBWebhookRoutes, routeDeps);
  await app.register(processorWebhookRoutes, routeDeps);
  // Encapsulated too (raw bodies for the platform account's signature).
  await app.register(billingWebhookRoutes, routeDeps);
  await app.register(billingRoutes, under(BILLING));
  await app.register(checkoutPublicRoutes, routeDeps);
  await app.register(checkoutPaymentRoutes, routeDeps);
  await app.register(checkoutCodRoutes, routeDeps);
  await app.register(orderActionRoutes, under(ORDERS));
  await app.register(previewRoutes, under(MERCHANT));
  await app.register(checkoutExtrasRoutes, routeDeps);
  await app.register(merchantCommerceRoutes, under(MERCHANT));
  await app.register(checkoutProgressRoutes, routeDeps);
  await app.register(checkoutRecoveryRoutes, routeDeps);
  await app.register(checkoutQuoteRoutes, routeDeps);
  await app.register(checkoutAddressRulesRoutes, routeDeps);
  await app.register(ordersRoutes, under(ORDERS));
  await app.register(orderExportRoutes, under(ORDERS));
  await app.register(customerRoutes, under(ORDERS));
  await app.register(notificationRoutes, under(MERCHANT));
  await app.register(statsRoutes, under(MERCHANT));
  await app.register(recoverySettingsRoutes, under(MERCHANT));
  await app.register(apiKeyRoutes, under(MERCHANT));
  await app.register(memberRoutes, under(MERCHANT));
  await app.register(securityRoutes, under(MERCHANT));
  await app.register(merchantWebhookRoutes, under(MERCHANT_WEBHOOKS));
  // Last: the web pages (checkout page by Host, script tag, assets, the dashboard for other browser navigations).
  await app.register(pagesRoutes, routeDeps);
  return app;
}

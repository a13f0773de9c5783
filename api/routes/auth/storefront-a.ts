// Storefront A OAuth app install. The dashboard sends the merchant's browser to /install with a short-lived
// handoff token (from PUT /api/merchant/storefront-a); we remember a one-time state and send the browser to
// the shop's consent page. The platform redirects back to /callback with a code, signed with the app
// secret; only a callback whose signature, state and shop all check out starts the install workflow
// (code exchange, app embed set-up, one write). The callback is a page the merchant's browser opens, so it never
// ends on an answer a person cannot read: success and every failure redirect to the dashboard; a failure goes to
// /dashboard/connection-problem?platform=storefront-a&problem=<what to fix>&code=<error code>, a page that says in
// plain words what to fix and links back to the wizard's step 1, and stores nothing.
// Both URLs carry credentials (handoff token, OAuth code), so their access log lines are not written.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { type RouteDeps } from '../../route-deps.js';
import type { MerchantClaims } from '../../plugins/auth.js';
import type { StorefrontAConnection } from '../../../generated/prisma/client.js';
import { exactShopHost } from '../../schemas/storefront-a.js';
import { AppError } from '../../../domain/errors.js';
import { buildAuthorizeUrl, isValidShopHost, verifyCallbackHmac } from '../../../integrations/storefront-a/oauth.js';
import { SecretDecryptionError } from '../../../security/secrets.js';
import { toAppError } from '../../plugins/errors.js';
import { installingInputs, STOREFRONT_A_SCOPES, storefrontAAad, STOREFRONT_A_INSTALL_PURPOSE } from '../../../model/connections.js';
import type { installStorefrontAWorkflow } from '../../../workflows/storefront-a/storefront-a-install.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;
/** How old the platform's signed redirect may be when it reaches us. */
export const CALLBACK_MAX_AGE_SECONDS = 5 * 60;

export const storefrontACallbackPath = '/api/auth/storefront-a/callback';

/**
 * What the merchant has to fix, named for the dashboard's connection-problem page (web/dashboard/pages/connection-problem.tsx
 * says each in plain words): the callback's own checks and the install workflow's failures, each mapped to one.
 */
export const INSTALL_PROBLEMS = ['wrong-secret', 'expired', 'denied', 'other-shop', 'app-refused', 'access-not-granted', 'shop-unavailable', 'in-progress', 'incomplete', 'failed'] as const;
export type InstallProblem = (typeof INSTALL_PROBLEMS)[number];

/** A failed callback check: the error (logged, and its code shown on the page) and what the merchant must fix. */
class CallbackProblem extends AppError {
  constructor(readonly problem: InstallProblem, code: ConstructorParameters<typeof AppError>[0], message: string) {
    super(code, message);
  }
}

/** The install workflow's failures (workflows/storefront-a/storefront-a-install.ts), by their code. */
function problemOf(err: AppError): InstallProblem {
  if (err instanceof CallbackProblem) return err.problem;
  switch (err.code) {
    case 'INVALID_SIGNATURE': return 'wrong-secret';
    case 'INVALID_TOKEN': return 'expired';
    // The code exchange refused the client id or secret.
    case 'INVALID_INPUT': return 'app-refused';
    // The grant lacks the scopes the checkout needs, or the inputs changed during the install.
    case 'CONFLICT': return 'access-not-granted';
    case 'UPSTREAM_ERROR':
    case 'STORE_TIMEOUT': return 'shop-unavailable';
    default: return 'failed';
  }
}

export function connectionProblemUrl(appOrigin: string, problem: InstallProblem, code: string): string {
  const q = new URLSearchParams({ platform: 'storefront-a', problem, code });
  return `${appOrigin}/dashboard/connection-problem?${q}`;
}

const redirect = z.null().describe('Redirect (Location header)');

export const storefrontAAuthRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db, secrets, temporal } = deps;

  app.get('/api/auth/storefront-a/install', {
    logLevel: 'warn',
    schema: {
      tags: ['auth'],
      summary: 'Start the storefront A app install (OAuth) with a handoff token',
      description:
        'Opened by the merchant\'s browser with the installUrl of PUT /api/merchant/storefront-a; redirects (302) to the shop\'s consent page. ' +
        'A missing, expired or foreign handoff, or inputs removed since, redirect (302) to /dashboard/connection-problem?platform=storefront-a&problem=expired&code=<UNAUTHORIZED|NOT_FOUND> (start again from step 1).',
      querystring: z.object({ handoff: z.string().optional().describe('Handoff token (10 minutes) from PUT /api/merchant/storefront-a') }),
      response: { 302: redirect },
    },
  }, async (request, reply) => {
    let claims: MerchantClaims;
    let connection: StorefrontAConnection | null;
    try {
      if (!request.query.handoff) throw new AppError('UNAUTHORIZED', 'Missing handoff token: start the install from the dashboard');
      claims = app.verifyPurposeToken(request.query.handoff, STOREFRONT_A_INSTALL_PURPOSE);
      connection = await db.storefrontAConnection.findUnique({ where: { merchantId: claims.merchantId } });
      if (!connection) throw new AppError('NOT_FOUND', 'No Shopify install inputs: save the shop address, client ID and client secret first');
    } catch (err) {
      // A stale or broken install link (opened again later, from the history): the merchant starts again from step 1.
      const failure = toAppError(err);
      request.log.warn({ code: failure.code, reason: failure.message }, 'storefront A install link refused');
      return reply.redirect(connectionProblemUrl(config.appOrigin, failure.status >= 500 ? 'failed' : 'expired', failure.code), 302);
    }
    // The pending inputs when new ones wait beside a working connection, else the connection's own (a reinstall).
    const installing = installingInputs(connection);
    if (installing.shop !== claims.shopDomain) return reply.redirect(connectionProblemUrl(config.appOrigin, 'expired', 'UNAUTHORIZED'), 302);

    const state = randomBytes(32).toString('base64url');
    const now = Date.now();
    // Old states are of no use to anyone: clear them as new ones are made.
    await db.oAuthState.deleteMany({ where: { expiresAt: { lt: new Date(now - 24 * 60 * 60 * 1000) } } });
    await db.oAuthState.create({ data: { state, merchantId: connection.merchantId, shop: installing.shop, expiresAt: new Date(now + OAUTH_STATE_TTL_MS) } });
    const url = buildAuthorizeUrl({
      shop: installing.shop,
      clientId: installing.clientId,
      scopes: STOREFRONT_A_SCOPES,
      redirectUri: `${config.publicApiUrl}${storefrontACallbackPath}`,
      state,
      apiUrlTemplate: config.storefrontA.apiTemplate,
      shopSuffix: config.storefrontA.shopSuffix,
    });
    return reply.redirect(url, 302);
  });

  app.get(storefrontACallbackPath, {
    logLevel: 'warn',
    schema: {
      tags: ['auth'],
      summary: 'Storefront A OAuth callback: stores the access token and installs the script tag',
      description:
        'Called by the merchant\'s browser on the platform\'s redirect. Checks, in order: a declined install (`error`: problem `denied`), ' +
        'the parameters (`incomplete`), shop host (INVALID_INPUT, `other-shop`), state (INVALID_TOKEN, `expired`), HMAC with the app secret ' +
        '(INVALID_SIGNATURE, `wrong-secret`), same shop as the install (INVALID_INPUT, `other-shop`), state unused and unexpired (INVALID_TOKEN, ' +
        '`expired`); then the install workflow (`app-refused`, `access-not-granted`, `shop-unavailable`, `in-progress`, `failed`). ' +
        'Always a redirect (302): on success to the dashboard with ?storefrontA=connected; on any failure, with nothing stored, to ' +
        '/dashboard/connection-problem?platform=storefront-a&problem=<problem>&code=<error code>, which says what to fix and links back to step 1.',
      // Every parameter optional here: a denied or broken redirect must still reach the handler, which checks them
      // and sends the merchant to the connection-problem page instead of answering JSON.
      querystring: z.looseObject({
        code: z.string().optional().describe('The authorization code (required for an install)'),
        shop: z.string().optional().describe(`The shop host, <name>${config.storefrontA.shopSuffix} (required)`),
        state: z.string().optional().describe('The install state we issued (single use, 10 minutes): another is refused (INVALID_TOKEN)'),
        timestamp: z.string().optional(),
        hmac: z.string().optional(),
        host: z.string().optional(),
        error: z.string().optional().describe('Set by an OAuth server when the merchant declined (e.g. access_denied)'),
      }),
      response: { 302: redirect },
    },
  }, async (request, reply) => {
    try {
      await completeInstall(request.url, request.query);
    } catch (err) {
      const failure = toAppError(err);
      const problem = problemOf(failure);
      request.log.warn({ code: failure.code, problem, reason: failure.message }, 'storefront A install callback refused');
      return reply.redirect(connectionProblemUrl(config.appOrigin, problem, failure.code), 302);
    }
    return reply.redirect(`${config.appOrigin}/dashboard?storefrontA=connected`, 302);
  });

  /** The callback's checks, in order, then the install workflow; throws what the merchant must fix. */
  async function completeInstall(url: string, query: { code?: string; shop?: string; state?: string; timestamp?: string; hmac?: string; error?: string }): Promise<void> {
    if (query.error) throw new CallbackProblem('denied', 'UNAUTHORIZED', `The install was declined on the shop (${query.error.slice(0, 60)})`);
    const { shop, state, code } = query;
    if (!code || !shop || !state || !query.timestamp || !query.hmac) throw new CallbackProblem('incomplete', 'INVALID_INPUT', 'The callback lacks code, shop, state, timestamp or hmac');
    // The signature covers every parameter exactly as sent: verify over the raw query string.
    const params = new URL(url, 'http://callback.invalid').searchParams;
    if (!exactShopHost(config.storefrontA.shopSuffix).safeParse(shop).success || !isValidShopHost(shop, config.storefrontA.shopSuffix)) {
      throw new CallbackProblem('other-shop', 'INVALID_INPUT', `shop is not a Shopify shop host (<name>${config.storefrontA.shopSuffix})`);
    }

    const pending = await db.oAuthState.findUnique({ where: { state } });
    if (!pending) throw new CallbackProblem('expired', 'INVALID_TOKEN', 'Unknown install state: start the install again from the dashboard');
    const connection = await db.storefrontAConnection.findUnique({ where: { merchantId: pending.merchantId } });
    if (!connection) throw new CallbackProblem('expired', 'INVALID_TOKEN', 'The Shopify install inputs were removed: save them and start again');
    // Signed with the secret of the app being installed: new inputs prove their secret here.
    const installing = installingInputs(connection);
    let clientSecret: string;
    try {
      clientSecret = secrets.decrypt(installing.clientSecretEnc, storefrontAAad.clientSecret(connection.merchantId));
    } catch (err) {
      if (err instanceof SecretDecryptionError) throw new CallbackProblem('failed', 'INTERNAL_ERROR', 'Stored client secret cannot be opened');
      throw err;
    }
    if (!(await verifyCallbackHmac(params, { clientId: installing.clientId, clientSecret }))) {
      // Shopify signs with the app's secret: a merchant who saved another secret lands here (or a forged or stale redirect).
      throw new CallbackProblem('wrong-secret', 'INVALID_SIGNATURE', 'The callback is not signed with the saved client secret (or is older than 5 minutes)');
    }
    if (pending.shop !== shop || installing.shop !== shop) throw new CallbackProblem('other-shop', 'INVALID_INPUT', 'This callback is for another shop than the install that was started');
    const now = new Date();
    if (pending.usedAt || pending.expiresAt <= now) throw new CallbackProblem('expired', 'INVALID_TOKEN', 'This install state was already used or has expired: start the install again');
    // Single use, also against two callbacks racing each other.
    const { count } = await db.oAuthState.updateMany({ where: { state, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
    if (count !== 1) throw new CallbackProblem('expired', 'INVALID_TOKEN', 'This install state was already used or has expired: start the install again');

    try {
      await temporal.client.workflow.execute<typeof installStorefrontAWorkflow>(WORKFLOWS.storefrontAInstall.type, {
        taskQueue: config.temporal.taskQueue,
        workflowId: WORKFLOWS.storefrontAInstall.id(connection.merchantId),
        args: [{ merchantId: connection.merchantId, shop, sealedCode: secrets.encrypt(code, storefrontAAad.oauthCode(connection.merchantId)) }],
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new CallbackProblem('in-progress', 'CONFLICT', 'Another Shopify install is in progress: wait a moment and reload the dashboard');
      throw err;
    }
  }
};

// Storefront A OAuth app install. The dashboard sends the merchant's browser to /install with a short-lived
// handoff token (from PUT /api/merchant/storefront-a); we remember a one-time state and send the browser to
// the shop's consent page. The platform redirects back to /callback with a code, signed with the app
// secret; only a callback whose signature, state and shop all check out starts the install workflow
// (code exchange, script tag, one write). Any failed check answers `{ error, code }` and stores nothing.
// Both URLs carry credentials (handoff token, OAuth code), so their access log lines are not written.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { type RouteDeps } from '../../route-deps.js';
import { errorResponse } from '../../schemas/common.js';
import { exactShopHost } from '../../schemas/storefront-a.js';
import { AppError } from '../../../domain/errors.js';
import { buildAuthorizeUrl, isValidShopHost, verifyCallbackHmac } from '../../../integrations/storefront-a/oauth.js';
import { SecretDecryptionError } from '../../../security/secrets.js';
import { installingInputs, STOREFRONT_A_SCOPES, storefrontAAad, STOREFRONT_A_INSTALL_PURPOSE } from '../../../model/connections.js';
import type { installStorefrontAWorkflow } from '../../../workflows/storefront-a-install.js';
import { storefrontAWorkflowIds } from '../../../workflows/storefront-a.messages.js';

export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;
/** How old the platform's signed redirect may be when it reaches us. */
export const CALLBACK_MAX_AGE_SECONDS = 5 * 60;

export const storefrontACallbackPath = '/api/auth/storefront-a/callback';

const redirect = z.void().describe('Redirect (Location header)');

export const storefrontAAuthRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db, secrets, temporal } = deps;

  app.get('/api/auth/storefront-a/install', {
    logLevel: 'warn',
    schema: {
      tags: ['auth'],
      summary: 'Start the storefront A app install (OAuth) with a handoff token',
      description: 'Opened by the merchant\'s browser with the installUrl of PUT /api/merchant/storefront-a; redirects (302) to the shop\'s consent page.',
      querystring: z.object({ handoff: z.string().optional().describe('Handoff token (10 minutes) from PUT /api/merchant/storefront-a') }),
      response: { 302: redirect, 401: errorResponse, 404: errorResponse },
    },
  }, async (request, reply) => {
    if (!request.query.handoff) throw new AppError('UNAUTHORIZED', 'Missing handoff token: start the install from the dashboard');
    const claims = app.verifyPurposeToken(request.query.handoff, STOREFRONT_A_INSTALL_PURPOSE);
    const connection = await db.storefrontAConnection.findUnique({ where: { merchantId: claims.merchantId } });
    if (!connection) throw new AppError('NOT_FOUND', 'No storefront A install inputs: save the shop, client id and client secret first');
    // The pending inputs when new ones wait beside a working connection, else the connection's own (a reinstall).
    const installing = installingInputs(connection);
    if (installing.shop !== claims.shopDomain) throw new AppError('UNAUTHORIZED', 'This install link is for another shop: start the install from the dashboard again');

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
        'Called by the merchant\'s browser on the platform\'s redirect. Checks, in order: shop host (INVALID_INPUT), state (INVALID_TOKEN), ' +
        'HMAC with the app secret (INVALID_SIGNATURE), same shop as the install (INVALID_INPUT), state unused and unexpired (INVALID_TOKEN). ' +
        'On success redirects (302) to the dashboard with ?storefrontA=connected.',
      querystring: z.looseObject({
        code: z.string().min(1),
        shop: exactShopHost(config.storefrontA.shopSuffix),
        state: z.string().min(1).describe('The install state we issued (single use, 10 minutes): another answers INVALID_TOKEN'),
        timestamp: z.string(),
        hmac: z.string(),
        host: z.string().optional(),
      }),
      response: { 302: redirect, 400: errorResponse, 401: errorResponse, 409: errorResponse, 502: errorResponse },
    },
  }, async (request, reply) => {
    // The signature covers every parameter exactly as sent: verify over the raw query string.
    const params = new URL(request.url, 'http://callback.invalid').searchParams;
    const { shop, state, code } = request.query;
    if (!isValidShopHost(shop, config.storefrontA.shopSuffix)) throw new AppError('INVALID_INPUT', `shop is not a storefront A shop host (<name>${config.storefrontA.shopSuffix})`);

    const pending = await db.oAuthState.findUnique({ where: { state } });
    if (!pending) throw new AppError('INVALID_TOKEN', 'Unknown install state: start the install again from the dashboard');
    const connection = await db.storefrontAConnection.findUnique({ where: { merchantId: pending.merchantId } });
    if (!connection) throw new AppError('INVALID_TOKEN', 'The storefront A install inputs were removed: save them and start again');
    // Signed with the secret of the app being installed: new inputs prove their secret here.
    const installing = installingInputs(connection);
    let clientSecret: string;
    try {
      clientSecret = secrets.decrypt(installing.clientSecretEnc, storefrontAAad.clientSecret(connection.merchantId));
    } catch (err) {
      if (err instanceof SecretDecryptionError) throw new AppError('INTERNAL_ERROR', 'Stored client secret cannot be opened');
      throw err;
    }
    if (!(await verifyCallbackHmac(params, { clientId: installing.clientId, clientSecret }))) {
      throw new AppError('INVALID_SIGNATURE', 'The callback signature is not valid (or too old): start the install again');
    }
    if (pending.shop !== shop || installing.shop !== shop) throw new AppError('INVALID_INPUT', 'This callback is for another shop than the install that was started');
    const now = new Date();
    if (pending.usedAt || pending.expiresAt <= now) throw new AppError('INVALID_TOKEN', 'This install state was already used or has expired: start the install again');
    // Single use, also against two callbacks racing each other.
    const { count } = await db.oAuthState.updateMany({ where: { state, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
    if (count !== 1) throw new AppError('INVALID_TOKEN', 'This install state was already used or has expired: start the install again');

    try {
      await temporal.client.workflow.execute<typeof installStorefrontAWorkflow>('installStorefrontAWorkflow', {
        taskQueue: config.temporal.taskQueue,
        workflowId: storefrontAWorkflowIds.install(connection.merchantId),
        args: [{ merchantId: connection.merchantId, shop, sealedCode: secrets.encrypt(code, storefrontAAad.oauthCode(connection.merchantId)) }],
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new AppError('CONFLICT', 'Another storefront A install is in progress: wait a moment and reload the dashboard');
      throw err;
    }
    return reply.redirect(`${config.appOrigin}/dashboard?storefrontA=connected`, 302);
  });
};

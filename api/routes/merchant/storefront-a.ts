// The merchant's storefront A connection: the install inputs (wizard step 1), their state, and disconnect.
// Saving the inputs answers an installUrl the dashboard opens to run the OAuth install
// (api/routes/auth/storefront-a.ts). New inputs saved while a connection works (another shop, app or
// secret) wait beside it as pending: the working connection keeps serving checkouts and webhooks until
// their install's callback succeeds, and a failed or abandoned install changes nothing. The client secret
// and the access token are stored sealed and never returned. Every query is scoped by the caller's
// merchant id.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import { errorResponse } from '../../schemas/common.js';
import { pastedShop } from '../../schemas/storefront-a.js';
import { credential } from '../../schemas/text.js';
import { AppError } from '../../../domain/errors.js';
import { Prisma } from '../../../prisma/client.js';
import { isValidShopHost, missingScopes } from '../../../integrations/storefront-a/oauth.js';
import { installingInputs, NO_PENDING_INPUTS, STOREFRONT_A_SCOPES, storefrontAAad } from '../../../model/connections.js';
import type { removeStorefrontAScriptTagWorkflow } from '../../../workflows/storefront-a/storefront-a-app-embed.js';
import { STOREFRONT_A_INSTALL_PURPOSE } from '../../../model/connections.js';
import { APP_PROJECT_DIR, appProjectZip, SHOPIFY_CLI_VERSION } from '../../storefront-a-app.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

export const INSTALL_LINK_TTL_SECONDS = 600;

/** What merchants paste: "Demo-Shop.myshopify.com", "https://demo-shop.myshopify.com/admin", … → the bare host. */
export function normalizeShopHost(input: string): string {
  return input.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/[/?#].*$/, '');
}

const inputsBodyFor = (shopSuffix: string) =>
  z.strictObject({
    shop: pastedShop(shopSuffix).describe(`Shop host, e.g. demo-shop${shopSuffix}, or its URL (the host is kept)`),
    clientId: credential('client id', 255).describe('Client id of the merchant\'s storefront A app'),
    clientSecret: credential('client secret', 1024).describe('Client secret of that app; stored encrypted, never returned'),
  });

const installUrl = z.string().describe('Open in the merchant\'s browser within 10 minutes to run the OAuth install');

const pendingInputs = z
  .object({ shop: z.string(), clientId: z.string(), since: z.string() })
  .nullable()
  .describe('New inputs waiting for their OAuth install (installUrl runs it); the connection above keeps working until it completes');

const savedResponse = z.object({
  shop: z.string().describe('The shop of the saved inputs'),
  clientId: z.string(),
  connected: z.boolean().describe('Whether these inputs are the working connection (false while they wait for their install)'),
  installUrl,
  pending: z.boolean().describe('The inputs wait beside a working connection, which keeps serving until their install completes'),
});

const connectionResponse = z
  .object({
    shop: z.string(),
    clientId: z.string(),
    connected: z.boolean(),
    installedAt: z.string().nullable(),
    uninstalledAt: z.string().nullable(),
    scopes: z.array(z.string()),
    missingScopes: z.array(z.string()).describe('Scopes the service needs that this install did not grant (an install made before they were asked for): reinstall with installUrl to grant them. Empty while not connected'),
    installUrl: installUrl.describe('Runs the OAuth install of the pending inputs if any, else of this connection (reinstall)'),
    pending: pendingInputs,
  })
  .meta({ id: 'StorefrontAConnection' });

const disconnectResponse = z.object({
  disconnected: z.literal(true),
  scriptTagsRemoved: z.number().int(),
  warning: z.string().nullable().describe('Set when the script tag could not be removed at the store'),
});

export const storefrontAMerchantRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, secrets, temporal } = deps;
  const suffix = config.storefrontA.shopSuffix;
  const security = [{ bearerAuth: [] }];
  const installUrlFor = (merchantId: string, shop: string) =>
    `${config.publicApiUrl}/api/auth/storefront-a/install?handoff=${encodeURIComponent(app.signPurposeToken({ merchantId, shopDomain: shop }, STOREFRONT_A_INSTALL_PURPOSE, INSTALL_LINK_TTL_SECONDS))}`;

  app.put('/storefront-a', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:write' },
    schema: {
      tags: ['merchant'],
      summary: 'Save the storefront A install inputs (shop, client id, client secret)',
      description:
        'Answers the installUrl that runs the OAuth install. Without a working connection the inputs are saved as they are and storefront A ' +
        'becomes the store platform. With one, other inputs (another shop, app or secret) wait as pending: the working connection keeps ' +
        'serving checkouts and webhooks until their install\'s callback succeeds, which replaces it; a failed or abandoned install changes ' +
        'nothing. A shop connected to another account answers CONFLICT.',
      security,
      body: inputsBodyFor(suffix),
      response: { 200: savedResponse, 400: errorResponse, 401: errorResponse, 409: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const shop = normalizeShopHost(request.body.shop);
    if (!isValidShopHost(shop, suffix)) throw new AppError('INVALID_INPUT', `shop must be your Shopify shop address: <name>${suffix}`, { fields: { 'body.shop': `must be <name>${suffix}` } });
    const { clientId, clientSecret } = request.body;
    const clientSecretEnc = secrets.encrypt(clientSecret, storefrontAAad.clientSecret(merchantId));

    let saved;
    try {
      saved = await request.merchantData.transaction(async (own, tx) => {
        // Across merchants: the shop may be held by another account.
        const holder = await tx.storefrontAConnection.findUnique({ where: { shop } });
        if (holder && holder.merchantId !== merchantId) {
          if (holder.connected) throw new AppError('CONFLICT', 'This shop is connected to another account');
          // An install nobody completed proves nothing: the shop goes to whoever completes OAuth.
          await tx.storefrontAConnection.delete({ where: { merchantId: holder.merchantId } });
          await tx.merchant.updateMany({ where: { id: holder.merchantId, shopDomain: shop }, data: { shopDomain: null } });
        }
        const mine = await own.storefrontAConnection.findFirst();
        if (mine?.connected && mine.accessTokenEnc) {
          // A working connection stays as it is: the same inputs ask for nothing new (a reinstall link), others wait for their install.
          const same = mine.shop === shop && mine.clientId === clientId && secrets.decrypt(mine.clientSecretEnc, storefrontAAad.clientSecret(merchantId)) === clientSecret;
          const pending = same ? NO_PENDING_INPUTS : { pendingShop: shop, pendingClientId: clientId, pendingClientSecretEnc: clientSecretEnc, pendingSince: new Date() };
          return own.storefrontAConnection.update({ data: pending });
        }
        // Nothing works yet: the inputs are saved as they are. Another shop or app: what OAuth gave us belongs to the old one.
        const reset = { accessTokenEnc: null, scopes: null, connected: false, installedAt: null, uninstalledAt: null, scriptTagId: null, scriptTagCheckedAt: null };
        const row = mine
          ? await own.storefrontAConnection.update({
            data: { shop, clientId, clientSecretEnc, ...NO_PENDING_INPUTS, ...(mine.shop === shop && mine.clientId === clientId ? {} : reset) },
          })
          : await own.storefrontAConnection.create({ data: { shop, clientId, clientSecretEnc } });
        await own.merchant.update({ data: { storePlatform: 'STOREFRONT_A', shopDomain: shop } });
        return row;
      });
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') throw new AppError('CONFLICT', 'This shop is connected to another account');
      throw err;
    }
    const installing = installingInputs(saved);
    return { shop: installing.shop, clientId: installing.clientId, connected: !installing.pending && saved.connected, installUrl: installUrlFor(merchantId, installing.shop), pending: installing.pending };
  });

  app.get('/storefront-a', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:read' },
    schema: {
      tags: ['merchant'],
      summary: 'The storefront A connection (no secrets)',
      security,
      response: { 200: connectionResponse, 401: errorResponse, 404: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const row = await request.merchantData.storefrontAConnection.findFirst();
    if (!row) throw new AppError('NOT_FOUND', 'No Shopify shop is connected: save the shop address, client ID and client secret first');
    return {
      shop: row.shop,
      clientId: row.clientId,
      connected: row.connected,
      installedAt: row.installedAt?.toISOString() ?? null,
      uninstalledAt: row.uninstalledAt?.toISOString() ?? null,
      scopes: row.scopes ? row.scopes.split(',') : [],
      missingScopes: row.connected && row.scopes ? missingScopes(row.scopes.split(','), STOREFRONT_A_SCOPES) : [],
      installUrl: installUrlFor(merchantId, installingInputs(row).shop),
      pending: row.pendingShop && row.pendingClientId && row.pendingSince ? { shop: row.pendingShop, clientId: row.pendingClientId, since: row.pendingSince.toISOString() } : null,
    };
  });

  app.get('/storefront-a/app.zip', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:read' },
    schema: {
      tags: ['merchant'],
      summary: 'Download your Shopify app\'s project for Shopify CLI: its configuration and our theme app extension',
      description:
        `One folder \`${APP_PROJECT_DIR}/\`: \`shopify.app.toml\` with the client id saved here (the one being installed, when new inputs wait), ` +
        'the scopes the install asks for, this service\'s OAuth callback as redirect URL, app/uninstalled and the compliance webhooks ' +
        '(customers/data_request, customers/redact, shop/redact) at this service; `extensions/` with the app embed; a README. Deploy it with ' +
        `\`npx @shopify/cli@${SHOPIFY_CLI_VERSION} app deploy --allow-updates\` in that folder. No secret inside. 404 before the inputs are saved.`,
      security,
      response: {
        200: { description: 'The project zip (Content-Disposition: attachment)', content: { 'application/zip': { schema: z.string().meta({ format: 'binary' }) } } },
        401: errorResponse,
        404: errorResponse,
      },
    },
  }, async (request, reply) => {
    const row = await request.merchantData.storefrontAConnection.findFirst();
    if (!row) throw new AppError('NOT_FOUND', 'No Shopify shop is connected: save the shop address, client ID and client secret first');
    const zip = appProjectZip({ clientId: installingInputs(row).clientId, apiUrl: config.publicApiUrl, appUrl: config.appOrigin });
    return reply
      .type('application/zip')
      .header('content-disposition', `attachment; filename="${zip.fileName}"`)
      .header('cache-control', 'private, no-cache')
      .send(Buffer.from(zip.bytes.buffer, zip.bytes.byteOffset, zip.bytes.byteLength) as unknown as string);
  });

  app.delete('/storefront-a', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:write' },
    schema: {
      tags: ['merchant'],
      summary: 'Disconnect storefront A: remove our script tag at the store, forget the inputs and token',
      description: 'The app stays installed at the store until the merchant uninstalls it there; the checkout button returns to the store\'s own checkout once the script tag is gone.',
      security,
      response: { 200: disconnectResponse, 401: errorResponse, 404: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const data = request.merchantData;
    const row = await data.storefrontAConnection.findFirst();
    if (!row) throw new AppError('NOT_FOUND', 'No Shopify shop is connected');
    const removal = await temporal.client.workflow.execute<typeof removeStorefrontAScriptTagWorkflow>(WORKFLOWS.storefrontAAppEmbedRemove.type, {
      taskQueue: config.temporal.taskQueue,
      workflowId: WORKFLOWS.storefrontAAppEmbedRemove.id(merchantId),
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [merchantId],
    });
    await data.batch([
      data.storefrontAConnection.deleteMany(),
      data.oauthStates.deleteMany(),
      data.merchant.updateIf({ where: { storePlatform: 'STOREFRONT_A' }, data: { storePlatform: null, shopDomain: null } }),
    ]);
    return { disconnected: true as const, scriptTagsRemoved: removal.removed, warning: removal.error };
  });
};

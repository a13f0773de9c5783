// The merchant's storefront B store (self-hosted platform, REST keys + our official plugin). Connecting
// proves the keys against the store in a workflow; the status and the removal are plain database work.
// The keys are sealed before they leave this handler and no answer ever carries them (only the consumer
// key's last 4 characters).
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { type RouteDeps } from '../../route-deps.js';
import { AppError } from '../../../domain/errors.js';
import { UnsafeUrlError } from '../../../security/ssrf.js';
import { errorResponse } from '../../schemas/common.js';
import { credential, fetchedUrl } from '../../schemas/text.js';
import type { connectStorefrontBWorkflow } from '../../../workflows/storefront-b/storefront-b-connection.js';
import { storefrontBAad, normalizeStoreUrl } from '../../../model/connections.js';
import { pluginZip, PLUGIN_SLUG } from '../../storefront-b-plugin.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['storefront-b'];
const WORKFLOW_TIMEOUT = '2 minutes';

const connectedStatus = z.object({
  connected: z.literal(true),
  storeUrl: z.string(),
  consumerKeyLast4: z.string().describe('Last 4 characters of the consumer key; the keys themselves are never returned'),
  connectedAt: z.string(),
  pluginInterceptedAt: z.string().nullable().describe('When our official plugin first sent a checkout from this store'),
});

export const storefrontBStatus = z
  .union([connectedStatus, z.object({ connected: z.literal(false) })])
  .meta({ id: 'StorefrontBConnectionStatus' });

const connectResult = connectedStatus
  .extend({
    pluginActive: z.boolean().describe('Whether the store reports our official plugin as active (it must be to intercept checkouts)'),
    currency: z.string().describe("The store's currency"),
  })
  .meta({ id: 'StorefrontBConnectResult' });

const connectBodyFor = (guarded: readonly string[]) =>
  z.strictObject({
    storeUrl: fetchedUrl(2048, guarded).describe('The store address, https (e.g. https://shop.example); it must resolve to a public address'),
    consumerKey: credential('consumer key', 256).describe('REST API consumer key (ck_…), read/write'),
    consumerSecret: credential('consumer secret', 256).describe('REST API consumer secret (cs_…)'),
  });


const invalidStoreUrl = (why: string) => new AppError('INVALID_INPUT', `storeUrl: ${why}`, { fields: { 'body.storeUrl': why } });

export const storefrontBRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db, secrets, temporal, urlGuard } = deps;

  const view = (row: { storeUrl: string; consumerKeyLast4: string; connectedAt: Date; pluginInterceptedAt: Date | null }) => ({
    connected: true as const,
    storeUrl: row.storeUrl,
    consumerKeyLast4: row.consumerKeyLast4,
    connectedAt: row.connectedAt.toISOString(),
    pluginInterceptedAt: row.pluginInterceptedAt?.toISOString() ?? null,
  });

  app.get('/storefront-b', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:read' },
    schema: { tags, summary: 'Storefront B connection status (never the keys)', ...auth, response: { 200: storefrontBStatus, 401: errorResponse } },
  }, async (request) => {
    const row = await request.merchantData.storefrontBConnection.findFirst();
    return row ? view(row) : { connected: false as const };
  });

  app.get('/storefront-b/plugin.zip', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:read' },
    schema: {
      tags,
      summary: 'Download our WordPress plugin (Hosted Checkout Connector) as the zip WordPress installs',
      description:
        `One top folder \`${PLUGIN_SLUG}/\` with the main file \`${PLUGIN_SLUG}.php\` (plugin header, GPL-2.0-or-later). Install: WordPress ` +
        'admin → Plugins → Add New → Upload Plugin → choose the zip → Install Now → Activate; then WooCommerce → Hosted Checkout: the ' +
        'service URL and the consumer key connected here. The same zip for every merchant (it holds no secret). 401 without a session.',
      ...auth,
      response: {
        200: { description: 'The plugin zip (Content-Disposition: attachment)', content: { 'application/zip': { schema: z.string().meta({ format: 'binary' }) } } },
        401: errorResponse,
      },
    },
  }, async (_request, reply) => {
    const zip = pluginZip();
    return reply
      .type('application/zip')
      .header('content-disposition', `attachment; filename="${zip.fileName}"`)
      .header('cache-control', 'private, no-cache')
      // The bytes as they are: Fastify sends a Buffer without serializing it (the schema's string is the document's "binary").
      .send(Buffer.from(zip.bytes.buffer, zip.bytes.byteOffset, zip.bytes.byteLength) as unknown as string);
  });

  app.post('/storefront-b/connect', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:write' },
    schema: {
      tags,
      summary: 'Connect a storefront B store with its REST keys (checked against the store before anything is saved)',
      description:
        'The store URL must be https and reach a public address (INVALID_INPUT otherwise; outside production, LOCAL_STORE_ORIGINS may name ' +
        'stores on the same machine). Wrong keys, or a key that cannot create orders (WooCommerce\'s "Read" permission; an empty order batch ' +
        'proves write access and changes nothing): INVALID_STORE_CREDENTIALS (422); ' +
        'a store whose currency the payment processor cannot charge in: UNSUPPORTED_CURRENCY (422); ' +
        'a store that does not answer in time: STORE_TIMEOUT (504); one that fails or is unreachable: UPSTREAM_ERROR (502); ' +
        'a store already connected to another account, or a connection already running: CONFLICT (409). ' +
        'On success storefront B becomes the store platform and the store host the shop domain.',
      ...auth,
      body: connectBodyFor(urlGuard.allowedOrigins),
      response: { 200: connectResult, 400: errorResponse, 401: errorResponse, 409: errorResponse, 422: errorResponse, 502: errorResponse, 504: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const { consumerKey, consumerSecret } = request.body;

    let url: URL;
    try {
      url = await urlGuard.check(request.body.storeUrl);
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw invalidStoreUrl(err.message);
      throw err;
    }
    const storeUrl = normalizeStoreUrl(url);

    // Across merchants, answered at once when it is already known; the unique store URL decides a race (CONFLICT from the workflow).
    // eslint-disable-next-line no-restricted-syntax -- across merchants: is the store another account's?
    const holder = await db.storefrontBConnection.findUnique({ where: { storeUrl }, select: { merchantId: true } });
    if (holder && holder.merchantId !== merchantId) throw new AppError('CONFLICT', 'This store is already connected to another account');

    let handle;
    try {
      handle = await temporal.client.workflow.start<typeof connectStorefrontBWorkflow>(WORKFLOWS.storefrontBConnect.type, {
        workflowId: WORKFLOWS.storefrontBConnect.id(merchantId),
        taskQueue: config.temporal.taskQueue,
        args: [{
          merchantId,
          storeUrl,
          consumerKeyEnc: secrets.encrypt(consumerKey, storefrontBAad.consumerKey(merchantId)),
          consumerSecretEnc: secrets.encrypt(consumerSecret, storefrontBAad.consumerSecret(merchantId)),
          consumerKeyLast4: consumerKey.slice(-4),
        }],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
        workflowExecutionTimeout: WORKFLOW_TIMEOUT,
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new AppError('CONFLICT', 'A store connection is already in progress: wait for it to finish');
      throw err;
    }
    const result = await handle.result();
    const row = await request.merchantData.storefrontBConnection.findFirstOrThrow();
    return { ...view(row), pluginActive: result.pluginActive, currency: result.currency };
  });

  app.delete('/storefront-b', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:write' },
    schema: {
      tags,
      summary: 'Remove the storefront B connection (and storefront B as the store platform)',
      ...auth,
      response: { 200: z.object({ connected: z.literal(false) }), 401: errorResponse, 404: errorResponse },
    },
  }, async (request) => {
    const removed = await request.merchantData.transaction(async (tx) => {
      const { count } = await tx.storefrontBConnection.deleteMany();
      if (count === 0) return false;
      await tx.merchant.updateIf({ where: { storePlatform: 'STOREFRONT_B' }, data: { storePlatform: null, shopDomain: null } });
      return true;
    });
    if (!removed) throw new AppError('NOT_FOUND', 'No WooCommerce store is connected');
    return { connected: false as const };
  });
};

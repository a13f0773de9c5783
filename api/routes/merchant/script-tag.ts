// Interception in the merchant's storefront A (Shopify) shop, under the spec's script-tag paths: since
// 2026-10-01 Shopify refuses new script tags, so what sends the checkout button to us is our theme app
// extension's app embed (docs/storefront-a.md). Status reads, live, whether the embed is on in the published
// theme and whether a legacy script tag is left; install removes legacy tags and answers the theme editor
// link the merchant opens to turn the embed on (only the merchant can, by saving in the theme editor).
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import type { MerchantScope } from '../../../model/merchant/merchant-scope.js';
import { errorResponse } from '../../schemas/common.js';
import { AppError } from '../../../domain/errors.js';
import type { checkStorefrontAScriptTagWorkflow, ensureStorefrontAScriptTagWorkflow } from '../../../workflows/storefront-a/storefront-a-app-embed.js';
import { type AppEmbedStatus } from '../../../workflows/storefront-a/storefront-a.messages.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

const statusResponse = z
  .object({
    platform: z.literal('STOREFRONT_A'),
    installed: z.boolean().describe('Our app embed is on in the published theme'),
    scriptTagId: z.string().nullable().describe('A legacy script tag of ours still in the shop (install removes it)'),
    src: z.string().describe('The legacy script tag source'),
    checkedAt: z.string().describe('When the store was asked (ISO 8601)'),
    activationUrl: z.string().describe('Theme editor deep link that turns the app embed on (the merchant saves there)'),
    themeName: z.string().nullable().describe('The published theme'),
  })
  .meta({ id: 'ScriptTagStatus' });

const errors = { 401: errorResponse, 409: errorResponse, 502: errorResponse };

export const scriptTagRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, temporal } = deps;
  const security = [{ bearerAuth: [] }];

  async function requireConnected(data: MerchantScope): Promise<void> {
    const row = await data.storefrontAConnection.findFirst({ select: { connected: true } });
    if (!row) throw new AppError('CONFLICT', 'The app embed needs a Shopify shop: connect your Shopify shop first');
    if (!row.connected) throw new AppError('CONFLICT', 'Your Shopify shop is not connected (the app is not installed yet, or was uninstalled): install the app first');
  }
  const reply = (s: AppEmbedStatus) => ({ platform: 'STOREFRONT_A' as const, ...s });

  app.get('/script-tag/status', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:read' },
    schema: {
      tags: ['merchant'],
      summary: 'Whether our app embed is on in the storefront A shop\'s published theme (checked live)',
      security,
      response: { 200: statusResponse, ...errors },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    await requireConnected(request.merchantData);
    return reply(await temporal.client.workflow.execute<typeof checkStorefrontAScriptTagWorkflow>(WORKFLOWS.storefrontAAppEmbedCheck.type, {
      taskQueue: config.temporal.taskQueue,
      workflowId: WORKFLOWS.storefrontAAppEmbedCheck.id(merchantId),
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [merchantId],
    }));
  });

  app.post('/script-tag/install', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:write' },
    schema: {
      tags: ['merchant'],
      summary: 'Drive interception in the storefront A shop',
      description: 'Removes a legacy script tag and answers the status with the theme editor link that activates the app embed.',
      security,
      response: { 200: statusResponse, ...errors },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    await requireConnected(request.merchantData);
    return reply(await temporal.client.workflow.execute<typeof ensureStorefrontAScriptTagWorkflow>(WORKFLOWS.storefrontAAppEmbed.type, {
      taskQueue: config.temporal.taskQueue,
      workflowId: WORKFLOWS.storefrontAAppEmbed.id(merchantId),
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [merchantId],
    }));
  });
};

// Our script tag in the merchant's storefront A shop: it is what sends the shop's checkout button to us.
// Status is checked live at the store (a workflow with one activity) and recorded; install puts the tag
// back when it is missing. Only storefront A has script tags (storefront B uses the official plugin).
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import { errorResponse } from '../../schemas/common.js';
import { AppError } from '../../../domain/errors.js';
import type { checkStorefrontAScriptTagWorkflow, ensureStorefrontAScriptTagWorkflow } from '../../../workflows/storefront-a-script-tag.js';
import { storefrontAWorkflowIds, type ScriptTagStatus } from '../../../workflows/storefront-a.messages.js';

const statusResponse = z
  .object({
    platform: z.literal('STOREFRONT_A'),
    installed: z.boolean(),
    scriptTagId: z.string().nullable(),
    src: z.string().describe('The script the shop loads'),
    checkedAt: z.string().describe('When the store was asked (ISO 8601)'),
  })
  .meta({ id: 'ScriptTagStatus' });

const errors = { 401: errorResponse, 409: errorResponse, 502: errorResponse };

export const scriptTagRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db, temporal } = deps;
  const security = [{ bearerAuth: [] }];

  async function requireConnected(merchantId: string): Promise<void> {
    const row = await db.storefrontAConnection.findUnique({ where: { merchantId }, select: { connected: true } });
    if (!row) throw new AppError('CONFLICT', 'Script tags need a storefront A shop: connect storefront A first');
    if (!row.connected) throw new AppError('CONFLICT', 'Storefront A is not connected (not installed yet, or uninstalled): install the app first');
  }
  const reply = (s: ScriptTagStatus) => ({ platform: 'STOREFRONT_A' as const, ...s });

  app.get('/api/merchant/script-tag/status', {
    onRequest: app.authenticate,
    schema: {
      tags: ['merchant'],
      summary: 'Whether our script tag is in the storefront A shop (checked live)',
      security,
      response: { 200: statusResponse, ...errors },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    await requireConnected(merchantId);
    return reply(await temporal.client.workflow.execute<typeof checkStorefrontAScriptTagWorkflow>('checkStorefrontAScriptTagWorkflow', {
      taskQueue: config.temporal.taskQueue,
      workflowId: storefrontAWorkflowIds.scriptTagCheck(merchantId),
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [merchantId],
    }));
  });

  app.post('/api/merchant/script-tag/install', {
    onRequest: app.authenticate,
    schema: {
      tags: ['merchant'],
      summary: 'Install (or reinstall) our script tag in the storefront A shop',
      description: 'Creates the script tag when the shop does not have it; answers the status afterwards.',
      security,
      response: { 200: statusResponse, ...errors },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    await requireConnected(merchantId);
    return reply(await temporal.client.workflow.execute<typeof ensureStorefrontAScriptTagWorkflow>('ensureStorefrontAScriptTagWorkflow', {
      taskQueue: config.temporal.taskQueue,
      workflowId: storefrontAWorkflowIds.scriptTag(merchantId),
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [merchantId],
    }));
  });
};

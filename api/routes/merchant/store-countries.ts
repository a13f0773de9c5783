// The countries the merchant's store ships to (shipping zones: a rate that follows the store ships there). They are
// read from the store when it connects; this route reads them again on the merchant's request, through the
// store-countries workflow (only activities call the store).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { type RouteDeps } from '../../route-deps.js';
import { AppError } from '../../../domain/errors.js';
import { errorResponse } from '../../schemas/common.js';
import { storeCountriesRefreshView } from '../../schemas/merchant.js';
import type { refreshStoreCountriesWorkflow } from '../../../workflows/merchant/store-countries.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

const auth = { security: [{ bearerAuth: [] }] };

export const storeCountriesRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, temporal } = deps;

  app.post('/store-countries/refresh', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:write' },
    schema: {
      tags: ['merchant'],
      summary: 'Read again which countries the connected store ships to (rates set to "store" ship there)',
      description:
        'Storefront A: the shop\'s shipping zones (Shop.shipsToCountries). Storefront B: WooCommerce\'s selling and shipping locations ' +
        '(Settings → General). The answer is what is kept now: on a store that fails or refuses, `error` says why and the countries read ' +
        'before stay. The store\'s policy pages (the checkout footer\'s links) are read again at the same time (`policies`; storefront A: ' +
        'Shop.shopPolicies, scope read_legal_policies; storefront B: the plugin\'s GET wc-hosted-checkout/v1/policies), kept the same way: ' +
        'a failure of one read never fails the other. No store connected: CONFLICT (409). A refresh already running: CONFLICT.',
      ...auth,
      response: { 200: storeCountriesRefreshView, 401: errorResponse, 409: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const { storePlatform } = await request.merchantData.merchant.get({ select: { storePlatform: true } });
    if (!storePlatform) throw new AppError('CONFLICT', 'No store is connected: connect your store first');
    try {
      return await temporal.client.workflow.execute<typeof refreshStoreCountriesWorkflow>(WORKFLOWS.storeCountries.type, {
        workflowId: WORKFLOWS.storeCountries.id(merchantId),
        taskQueue: config.temporal.taskQueue,
        args: [{ merchantId }],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
        workflowExecutionTimeout: '2 minutes',
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new AppError('CONFLICT', 'The countries are being read already: wait a moment');
      throw err;
    }
  });
};

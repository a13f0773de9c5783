// The merchant's notification settings (GET, PUT /api/merchant/notifications): which events email the merchant (a new
// order, a refund, an order the store refused, a failing or disabled webhook endpoint) and to which addresses. The
// activities that send those emails read the same columns (domain/merchant/notifications.ts) at the time of the event.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type RouteDeps } from '../../route-deps.js';
import { NOTIFICATION_COLUMN, NOTIFICATION_EVENTS, type NotificationColumns } from '../../../domain/merchant/notifications.js';
import { errorResponse } from '../../schemas/common.js';
import { notificationSettings, notificationSettingsInput } from '../../schemas/notifications.js';

const tags = ['merchant'];
const auth = { security: [{ bearerAuth: [] }] };
const select = { email: true, notifyNewOrder: true, notifyRefund: true, notifyStoreOrderFailed: true, notifyEndpointDisabled: true, notificationEmails: true } as const;

function view(m: NotificationColumns) {
  return {
    events: Object.fromEntries(NOTIFICATION_EVENTS.map((e) => [e, m[NOTIFICATION_COLUMN[e]]])) as Record<(typeof NOTIFICATION_EVENTS)[number], boolean>,
    recipients: m.notificationEmails,
    defaultRecipient: m.email,
  };
}

export const notificationRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app) => {

  app.get('/notifications', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'settings:read' },
    schema: {
      tags,
      summary: 'Which events email you, and where',
      description: 'newOrder, refund, storeOrderFailed, endpointDisabled (the warnings of a failing endpoint and the notice when it is disabled). recipients empty: the account\'s email.',
      ...auth,
      response: { 200: notificationSettings, 401: errorResponse },
    },
  }, async (request) => view(await request.merchantData.merchant.get({ select })));

  app.put('/notifications', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'settings:write' },
    schema: {
      tags,
      summary: 'Change which events email you, and where',
      description: 'Events left out keep their setting; recipients replaces the list when given (at most 5 valid addresses, each once; [] for the account\'s email). Bad input changes nothing.',
      ...auth,
      body: notificationSettingsInput,
      response: { 200: notificationSettings, 400: errorResponse, 401: errorResponse },
    },
  }, async (request) => {
    const { events, recipients } = request.body;
    const data = {
      ...Object.fromEntries(Object.entries(events ?? {}).filter(([, on]) => on !== undefined).map(([e, on]) => [NOTIFICATION_COLUMN[e as keyof typeof NOTIFICATION_COLUMN], on])),
      ...(recipients ? { notificationEmails: recipients } : {}),
    };
    return view(await request.merchantData.merchant.update({ data, select }));
  });
};

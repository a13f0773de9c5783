// Wallet payments on the checkout domain: its status (part of GET /api/merchant/processor), and the merchant's
// confirmation that the domain appears in Whop's dashboard, which Whop's API cannot report (model/wallet-domain.ts,
// docs/processor.md). Every change tells the merchant's wallet-domain workflow to check again.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyBaseLogger } from 'fastify';
import type { Client } from '@temporalio/client';
import type { Config } from '../../../config/index.js';
import { type RouteDeps } from '../../route-deps.js';
import { errorResponse } from '../../schemas/common.js';
import { trimmed } from '../../schemas/text.js';
import { confirmWalletDomain, walletView, withdrawWalletDomain } from '../../../model/wallet-domain.js';
import { assertPlanAllows } from '../../../model/plan-features.js';
import { walletDomainChangedSignal, walletDomainWorkflowId } from '../../../workflows/wallet-domain.messages.js';
import { walletDomainWorkflow } from '../../../workflows/wallet-domain.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['processor'];

export const walletStatus = z
  .object({
    domain: z.string().describe('The domain checkouts are served at now: the verified custom domain, else the subdomain'),
    status: z.enum(['registered', 'pending', 'needs_action', 'error', 'not_registered']),
    ready: z
      .boolean()
      .describe("Wallet payments can be offered: the merchant confirmed this domain appears in the processor's dashboard for the connected account (its API cannot report it)"),
    statusMessage: z.string().nullable().describe('What to do, or what was confirmed and when'),
    lastCheckedAt: z.string().nullable(),
    confirmedAt: z.string().nullable().describe('When the merchant confirmed this domain for this processor account; null until then'),
  })
  .meta({ id: 'WalletDomainStatus' });

/** A host name as the merchant copies it (letter case and a trailing dot do not matter). */
const hostname = trimmed(/^(?=.{1,253}\.?$)(?:(?!-)[A-Za-z0-9-]{1,63}(?<!-)\.)*(?!-)[A-Za-z0-9-]{1,63}(?<!-)\.?$/, 'must be a domain name (e.g. checkout.example.com)', { max: 300 })
  .transform((value) => value.toLowerCase().replace(/\.$/, ''))
  .describe('The domain shown as `wallets.domain` in GET /api/merchant/processor');

/** Tells the merchant's wallet domain workflow to check again, starting it if needed (best effort: it skips without a processor). */
export async function walletDomainChanged(client: Client, config: Pick<Config, 'temporal'>, merchantId: string, log: FastifyBaseLogger): Promise<void> {
  try {
    await client.workflow.signalWithStart(walletDomainWorkflow, {
      workflowId: walletDomainWorkflowId(merchantId),
      taskQueue: config.temporal.taskQueue,
      args: [{ merchantId }],
      signal: walletDomainChangedSignal,
    });
  } catch (err) {
    log.warn({ err, merchantId }, 'wallet domain workflow could not be told about the change');
  }
}

export const walletDomainRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db, temporal } = deps;

  app.post('/api/merchant/processor/wallet-domain/confirm', {
    onRequest: app.authenticate,
    schema: {
      tags,
      summary: "Confirm that the checkout domain appears in the processor dashboard's wallet domains: wallets become ready",
      description:
        "Whop's API has no wallet-domain endpoint, so the service cannot see the registration: the merchant adds the domain in Whop's " +
        'dashboard and confirms it here. `domain` must be the domain checkouts are served at now (`wallets.domain`), else CONFLICT (409) ' +
        'with details.currentDomain; without a connected processor NOT_FOUND (404). Confirming again keeps the first date. A new checkout ' +
        'domain or another processor account needs a new confirmation. Wallet payments come with Growth (Demo: to set up): on Starter ' +
        'PLAN_FEATURE_REQUIRED (403, details.requiredPlan), nothing changed.',
      ...auth,
      body: z.strictObject({ domain: hostname }),
      response: { 200: walletStatus, 400: errorResponse, 401: errorResponse, 403: errorResponse, 404: errorResponse, 409: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const { platformSubscription } = await db.merchant.findUniqueOrThrow({ where: { id: merchantId }, select: { platformSubscription: { select: { planId: true, status: true } } } });
    assertPlanAllows(platformSubscription, 'wallets');
    const row = await confirmWalletDomain(db, config, merchantId, request.body.domain);
    await walletDomainChanged(temporal.client, config, merchantId, request.log);
    return walletView(row, row);
  });

  app.delete('/api/merchant/processor/wallet-domain/confirm', {
    onRequest: app.authenticate,
    schema: {
      tags,
      summary: 'Withdraw the wallet domain confirmation (the domain is not, or no longer, in the processor dashboard): wallets are not ready',
      description: 'Without a connected processor NOT_FOUND (404). The merchant is not emailed again for a domain it was already told about.',
      ...auth,
      response: { 200: walletStatus, 401: errorResponse, 404: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const row = await withdrawWalletDomain(db, config, merchantId);
    await walletDomainChanged(temporal.client, config, merchantId, request.log);
    return walletView(row, row);
  });
};

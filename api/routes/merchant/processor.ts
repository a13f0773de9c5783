// The merchant's payment processor connection. Connecting and disconnecting are workflows (they call the
// processor); the status is read from processor_connections (the working connection) and the latest
// processor_connection_attempts row (a key being set up, or why the last one failed). A new key is sealed
// into an attempt row before the connection workflow starts, so it never enters workflow history, and it
// replaces the working connection only once it is completely set up: a refused key changes nothing that
// works. No answer ever carries a key or a webhook secret (only the key's last 4 characters and booleans).
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { type RouteDeps } from '../../route-deps.js';
import { AppError } from '../../../domain/errors.js';
import { isProcessorReady } from '../../../domain/processor.js';
import { errorResponse } from '../../schemas/common.js';
import { credential } from '../../schemas/text.js';
import { connectProcessorWorkflow, disconnectProcessorWorkflow } from '../../../workflows/processor-connection.js';
import { processorAad } from '../../../model/connections.js';
import { processorWorkflowIds, type ProcessorConnectionInput } from '../../../workflows/processor-connection.messages.js';
import type { ProcessorConnection, ProcessorConnectionAttempt } from '../../../generated/prisma/client.js';
import type { Db } from '../../../prisma/client.js';
import { walletStatusView } from '../../../model/wallets.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['processor'];
/** Longer than any connection can run (the workflows' execution time-out), so a CONNECTING row older than this is stale. */
const WORKFLOW_TIMEOUT = '3 minutes';
/** Between writing the CONNECTING row and the workflow starting: a second connect in this window is a CONFLICT. */
const STARTING_WINDOW_MS = 15_000;

export const walletStatus = z
  .object({
    status: z
      .enum(['hosted', 'embedded', 'not_on_plan'])
      .describe("hosted: Whop's hosted checkout page offers Apple Pay and Google Pay, with no domain set-up; embedded: shoppers pay in Whop's embedded checkout on the merchant's page, which offers Apple Pay only on a domain verified with Whop — not registered by this service yet, so not offered (ready false); not_on_plan: the plan has no wallet payments, so Whop's page is told not to offer them"),
    ready: z.boolean().describe("Shoppers' checkouts offer wallet payments now (the plan has them live; on Demo only previews do)"),
    statusMessage: z.string().describe('What this means for the shoppers, and the plan to choose when the plan lacks them'),
  })
  .meta({ id: 'WalletStatus' });

const attemptView = z
  .object({
    status: z.enum(['CONNECTING', 'FAILED']),
    apiKeyLast4: z.string(),
    error: z.string().nullable().describe('Why it failed'),
    startedAt: z.string(),
  })
  .describe('The latest key submitted since the connection above was made, while it is being set up or after it failed; the connection keeps working meanwhile')
  .meta({ id: 'ProcessorConnectionAttempt' });

export const processorStatus = z
  .object({
    connected: z.boolean().describe('The connection finished successfully (status CONNECTED)'),
    ready: z.boolean().describe('Business ID, Product ID and webhook secret all present: card payments can run'),
    status: z.enum(['CONNECTING', 'CONNECTED', 'FAILED']).nullable().describe('The connection\'s, or without one the attempt\'s'),
    apiKeyLast4: z.string().nullable().describe('Last 4 characters of the API key; the key itself is never returned'),
    businessId: z.string().nullable(),
    productId: z.string().nullable(),
    webhookRegistered: z.boolean().describe('Our payment webhook is registered and its secret stored (never returned)'),
    lastError: z.string().nullable().describe('Why the last connection attempt failed (the connection, if any, is unchanged)'),
    connectedAt: z.string().nullable(),
    attempt: attemptView.nullable(),
  })
  .meta({ id: 'ProcessorConnectionStatus' });

export type ProcessorStatus = z.infer<typeof processorStatus>;

type Attempt = Pick<ProcessorConnectionAttempt, 'status' | 'apiKeyLast4' | 'lastError' | 'createdAt'>;

/** The working connection, with the latest attempt made since (the connection wins every top-level field it has). */
export function toProcessorStatus(row: ProcessorConnection | null, latest: Attempt | null = null): ProcessorStatus {
  const attempt = latest && latest.status !== 'REPLACED' && (!row?.connectedAt || latest.createdAt > row.connectedAt)
    ? { status: latest.status, apiKeyLast4: latest.apiKeyLast4, error: latest.lastError, startedAt: latest.createdAt.toISOString() }
    : null;
  return {
    connected: row?.status === 'CONNECTED',
    ready: isProcessorReady(row),
    status: row?.status ?? attempt?.status ?? null,
    apiKeyLast4: row?.apiKeyLast4 ?? attempt?.apiKeyLast4 ?? null,
    businessId: row?.businessId ?? null,
    productId: row?.productId ?? null,
    webhookRegistered: !!row && row.webhookId !== null && row.webhookSecretEnc !== null,
    lastError: attempt?.status === 'FAILED' ? attempt.error : row?.lastError ?? null,
    connectedAt: row?.connectedAt?.toISOString() ?? null,
    attempt,
  };
}

/** The merchant's status as GET and connect answer it. */
export async function processorStatusOf(db: Db, merchantId: string): Promise<ProcessorStatus> {
  const [row, latest] = await Promise.all([
    db.processorConnection.findUnique({ where: { merchantId } }),
    db.processorConnectionAttempt.findFirst({ where: { merchantId, status: { not: 'REPLACED' } }, orderBy: { createdAt: 'desc' } }),
  ]);
  return toProcessorStatus(row, latest);
}

const connectBody = z.strictObject({
  apiKey: credential('API key', 256).describe("The processor account's secret API key (printable ASCII, no spaces)"),
});

export const processorRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const { config, db, secrets, temporal } = deps;

  async function isRunning(workflowId: string): Promise<boolean> {
    try {
      return (await temporal.client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }

  async function refuseWhileBusy(merchantId: string): Promise<void> {
    const [connecting, disconnecting] = await Promise.all([isRunning(processorWorkflowIds.connect(merchantId)), isRunning(processorWorkflowIds.disconnect(merchantId))]);
    if (connecting) throw new AppError('CONFLICT', 'A Whop connection is already in progress: wait for it to finish');
    if (disconnecting) throw new AppError('CONFLICT', 'Whop is being disconnected: wait for it to finish');
  }

  /** Runs one of the merchant's processor workflows and waits for it; one at a time per id (else CONFLICT). */
  async function run<T>(workflow: (input: ProcessorConnectionInput) => Promise<T>, workflowId: string, input: ProcessorConnectionInput): Promise<T> {
    let handle;
    try {
      handle = await temporal.client.workflow.start(workflow, {
        workflowId,
        taskQueue: config.temporal.taskQueue,
        args: [input],
        // A finished run (succeeded or failed) never blocks the next attempt; a running one does.
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
        workflowExecutionTimeout: WORKFLOW_TIMEOUT,
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new AppError('CONFLICT', 'A Whop connection change is already in progress: wait for it to finish');
      throw err;
    }
    return handle.result();
  }

  app.get('/api/merchant/processor', {
    onRequest: app.authenticate,
    schema: {
      tags,
      summary: 'Processor connection status, part by part (never the key or the webhook secret), and wallet payments',
      description:
        "`wallets`: Apple Pay and Google Pay. On Whop's hosted checkout page Whop offers them with no domain set-up, so nothing " +
        'is asked of the merchant: `hosted` when the plan includes wallet payments (Growth; Demo: previews only), ' +
        "`not_on_plan` otherwise (Whop's page is told not to offer them, with the plan to choose). `embedded` (ready false) " +
        "when shoppers pay in Whop's embedded checkout on the merchant's page (paymentPage embedded), which offers Apple Pay " +
        'only on a domain verified with Whop: not registered by this service yet. ' +
        'null while no processor is connected.',
      ...auth,
      response: { 200: processorStatus.extend({ wallets: walletStatus.nullable() }).meta({ id: 'ProcessorStatusWithWallets' }), 401: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const status = await processorStatusOf(db, merchantId);
    const wallets = await walletStatusView(db, merchantId, config.processor.paymentPage);
    return { ...status, wallets };
  });

  app.post('/api/merchant/processor/connect', {
    onRequest: app.authenticate,
    schema: {
      tags,
      summary: 'Connect the processor with an API key: key checked, business found, product created, webhook registered',
      description:
        'The key is set up on its own first; only once it is complete does it replace the previous connection (whose webhook is then ' +
        'removed at the processor with the previous key). A key the processor rejects answers INVALID_PROCESSOR_KEY (422); one that does ' +
        'not answer in time PROCESSOR_TIMEOUT (504); other processor failures UPSTREAM_ERROR (502); another connection change running ' +
        'CONFLICT (409). On any failure the previous connection keeps working unchanged, and GET /api/merchant/processor shows it with ' +
        'lastError and attempt saying why the new key was not taken.',
      ...auth,
      body: connectBody,
      response: { 200: processorStatus, 400: errorResponse, 401: errorResponse, 409: errorResponse, 422: errorResponse, 502: errorResponse, 504: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const { apiKey } = request.body;
    await refuseWhileBusy(merchantId);

    const pending = await db.processorConnectionAttempt.findFirst({ where: { merchantId, status: 'CONNECTING' }, orderBy: { createdAt: 'desc' } });
    if (pending && Date.now() - pending.createdAt.getTime() < STARTING_WINDOW_MS) {
      throw new AppError('CONFLICT', 'A Whop connection is already in progress: wait for it to finish');
    }
    // An attempt still CONNECTING here has no run left (it timed out); attempts with nothing left to clean up
    // (no webhook of theirs at the processor) are history. The connection itself is not touched.
    await db.processorConnectionAttempt.updateMany({ where: { merchantId, status: 'CONNECTING' }, data: { status: 'FAILED', lastError: 'This connection attempt did not finish: connect again' } });
    await db.processorConnectionAttempt.deleteMany({ where: { merchantId, status: { not: 'CONNECTING' }, webhookId: null } });
    const attempt = await db.processorConnectionAttempt.create({
      data: { merchantId, status: 'CONNECTING', apiKeyEnc: secrets.encrypt(apiKey, processorAad.apiKey(merchantId)), apiKeyLast4: apiKey.slice(-4) },
    });
    try {
      await run(connectProcessorWorkflow, processorWorkflowIds.connect(merchantId), { merchantId, attemptId: attempt.id });
    } catch (err) {
      // Another connection won the start: this attempt never ran.
      if (err instanceof AppError && err.code === 'CONFLICT') await db.processorConnectionAttempt.deleteMany({ where: { id: attempt.id, status: 'CONNECTING', businessId: null } });
      throw err;
    }
    return processorStatusOf(db, merchantId);
  });

  app.delete('/api/merchant/processor', {
    onRequest: app.authenticate,
    schema: {
      tags,
      summary: 'Disconnect the processor: our webhook is removed at the processor, then the connection is deleted',
      ...auth,
      response: {
        200: z.object({ connected: z.literal(false) }),
        401: errorResponse,
        404: errorResponse,
        409: errorResponse,
        502: errorResponse,
        504: errorResponse,
      },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const existing = await db.processorConnection.findUnique({ where: { merchantId }, select: { merchantId: true } });
    if (!existing) throw new AppError('NOT_FOUND', 'Whop is not connected');
    await refuseWhileBusy(merchantId);
    const { deleted } = await run(disconnectProcessorWorkflow, processorWorkflowIds.disconnect(merchantId), { merchantId });
    if (!deleted) throw new AppError('NOT_FOUND', 'Whop is not connected');
    return { connected: false as const };
  });
};

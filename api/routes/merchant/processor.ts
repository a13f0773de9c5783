// The merchant's payment processor connection. Connecting and disconnecting are workflows (they call the
// processor); the status is read from processor_connections only. The API key is sealed into the row
// before the connection workflow starts, so it never enters workflow history, and no answer ever carries
// the key or the webhook secret (only the key's last 4 characters and booleans).
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { Prisma } from '../../../prisma/client.js';
import type { RouteDeps } from '../../app.js';
import { AppError } from '../../../domain/errors.js';
import { isProcessorReady } from '../../../domain/processor.js';
import { errorResponse } from '../../schemas/common.js';
import { credential } from '../../schemas/text.js';
import { connectProcessorWorkflow, disconnectProcessorWorkflow } from '../../../workflows/processor-connection.js';
import { processorAad, processorWorkflowIds } from '../../../workflows/processor-connection.messages.js';
import type { ProcessorConnection } from '../../../generated/prisma/client.js';
import { walletStatus, walletStatusOf } from './domain.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['processor'];
/** Longer than any connection can run (the workflows' execution time-out), so a CONNECTING row older than this is stale. */
const WORKFLOW_TIMEOUT = '3 minutes';
/** Between writing the CONNECTING row and the workflow starting: a second connect in this window is a CONFLICT. */
const STARTING_WINDOW_MS = 15_000;

export const processorStatus = z
  .object({
    connected: z.boolean().describe('The connection finished successfully (status CONNECTED)'),
    ready: z.boolean().describe('Business ID, Product ID and webhook secret all present: card payments can run'),
    status: z.enum(['CONNECTING', 'CONNECTED', 'FAILED']).nullable(),
    apiKeyLast4: z.string().nullable().describe('Last 4 characters of the API key; the key itself is never returned'),
    businessId: z.string().nullable(),
    productId: z.string().nullable(),
    webhookRegistered: z.boolean().describe('Our payment webhook is registered and its secret stored (never returned)'),
    lastError: z.string().nullable().describe('Why the last connection attempt failed'),
    connectedAt: z.string().nullable(),
  })
  .meta({ id: 'ProcessorConnectionStatus' });

export type ProcessorStatus = z.infer<typeof processorStatus>;

export function toProcessorStatus(row: ProcessorConnection | null): ProcessorStatus {
  if (!row) {
    return { connected: false, ready: false, status: null, apiKeyLast4: null, businessId: null, productId: null, webhookRegistered: false, lastError: null, connectedAt: null };
  }
  return {
    connected: row.status === 'CONNECTED',
    ready: isProcessorReady(row),
    status: row.status,
    apiKeyLast4: row.apiKeyLast4,
    businessId: row.businessId,
    productId: row.productId,
    webhookRegistered: row.webhookId !== null && row.webhookSecretEnc !== null,
    lastError: row.lastError,
    connectedAt: row.connectedAt?.toISOString() ?? null,
  };
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
    if (connecting) throw new AppError('CONFLICT', 'A processor connection is already in progress: wait for it to finish');
    if (disconnecting) throw new AppError('CONFLICT', 'The processor is being disconnected: wait for it to finish');
  }

  /** Runs one of the merchant's processor workflows and waits for it; one at a time per id (else CONFLICT). */
  async function run<T>(workflow: (input: { merchantId: string }) => Promise<T>, workflowId: string, merchantId: string): Promise<T> {
    let handle;
    try {
      handle = await temporal.client.workflow.start(workflow, {
        workflowId,
        taskQueue: config.temporal.taskQueue,
        args: [{ merchantId }],
        // A finished run (succeeded or failed) never blocks the next attempt; a running one does.
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
        workflowExecutionTimeout: WORKFLOW_TIMEOUT,
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new AppError('CONFLICT', 'A processor connection change is already in progress: wait for it to finish');
      throw err;
    }
    return handle.result();
  }

  app.get('/api/merchant/processor', {
    onRequest: app.authenticate,
    schema: {
      tags,
      summary: 'Processor connection status, part by part (never the key or the webhook secret), and wallet readiness',
      description:
        '`wallets`: the checkout domain (the verified custom domain, else the subdomain) as registered with the processor for wallet ' +
        'payments, by a best-effort workflow after the connection and after a custom domain is verified. ready only when the processor ' +
        'reports it registered; null while no processor is connected.',
      ...auth,
      response: { 200: processorStatus.extend({ wallets: walletStatus.nullable() }).meta({ id: 'ProcessorStatusWithWallets' }), 401: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const row = await db.processorConnection.findUnique({ where: { merchantId } });
    const wallets = await walletStatusOf(db, config, merchantId, row?.status === 'CONNECTED' ? row.businessId : null);
    return { ...toProcessorStatus(row), wallets };
  });

  app.post('/api/merchant/processor/connect', {
    onRequest: app.authenticate,
    schema: {
      tags,
      summary: 'Connect the processor with an API key: key checked, business found, product created, webhook registered',
      description:
        'Replaces any previous connection (its webhook is removed at the processor first). Answers when the connection is ready, ' +
        'or INVALID_PROCESSOR_KEY (422) for a key the processor rejects, PROCESSOR_TIMEOUT (504) when it does not answer in time, ' +
        'UPSTREAM_ERROR (502) for other processor failures, CONFLICT (409) while another connection change is running.',
      ...auth,
      body: connectBody,
      response: { 200: processorStatus, 400: errorResponse, 401: errorResponse, 409: errorResponse, 422: errorResponse, 502: errorResponse, 504: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const { apiKey } = request.body;
    await refuseWhileBusy(merchantId);

    const existing = await db.processorConnection.findUnique({ where: { merchantId }, select: { status: true, updatedAt: true } });
    if (existing?.status === 'CONNECTING' && Date.now() - existing.updatedAt.getTime() < STARTING_WINDOW_MS) {
      throw new AppError('CONFLICT', 'A processor connection is already in progress: wait for it to finish');
    }
    // A new key replaces the old connection: its webhook is removed with the key it was registered with.
    if (existing) await run(disconnectProcessorWorkflow, processorWorkflowIds.disconnect(merchantId), merchantId);

    try {
      await db.processorConnection.create({
        data: { merchantId, apiKeyEnc: secrets.encrypt(apiKey, processorAad.apiKey(merchantId)), apiKeyLast4: apiKey.slice(-4), status: 'CONNECTING' },
      });
    } catch (err) {
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') {
        throw new AppError('CONFLICT', 'A processor connection is already in progress: wait for it to finish');
      }
      throw err;
    }
    await run(connectProcessorWorkflow, processorWorkflowIds.connect(merchantId), merchantId);
    return toProcessorStatus(await db.processorConnection.findUnique({ where: { merchantId } }));
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
    if (!existing) throw new AppError('NOT_FOUND', 'No processor is connected');
    await refuseWhileBusy(merchantId);
    const { deleted } = await run(disconnectProcessorWorkflow, processorWorkflowIds.disconnect(merchantId), merchantId);
    if (!deleted) throw new AppError('NOT_FOUND', 'No processor is connected');
    return { connected: false as const };
  });
};

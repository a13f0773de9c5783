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
import type { MerchantScope } from '../../../model/merchant/merchant-scope.js';
import { AppError } from '../../../domain/errors.js';
import { isProcessorReady } from '../../../domain/processor.js';
import { errorResponse } from '../../schemas/common.js';
import { credential } from '../../schemas/text.js';
import type { connectProcessorWorkflow, disconnectProcessorWorkflow } from '../../../workflows/processor/processor-connection.js';
import { processorAad } from '../../../model/connections.js';
import { type ProcessorConnectionInput } from '../../../workflows/processor/processor-connection.messages.js';
import type { ProcessorConnection, ProcessorConnectionAttempt } from '../../../generated/prisma/client.js';
import { walletStatusView } from '../../../model/merchant/wallets.js';
import type { applePayDomainWorkflow } from '../../../workflows/custom-domains/apple-pay-domain.js';
import { WORKFLOWS } from '../../../domain/temporal/workflow-names.js';

const auth = { security: [{ bearerAuth: [] }] };
const tags = ['processor'];
/** Longer than any connection can run (the workflows' execution time-out), so a CONNECTING row older than this is stale. */
const WORKFLOW_TIMEOUT = '3 minutes';
/** Between writing the CONNECTING row and the workflow starting: a second connect in this window is a CONFLICT. */
const STARTING_WINDOW_MS = 15_000;

const applePayDomainView = z
  .object({
    hostname: z.string().describe("The merchant's checkout host now (its verified custom domain, else its subdomain): the one registered, never a client-given name"),
    status: z
      .enum(['not_registered', 'pending', 'ready', 'action_required', 'releasing'])
      .describe("not_registered: not registered for this host and Whop company, or Whop reports no Apple Pay on it; pending/ready/action_required/releasing: Whop's apple_pay.state as last answered"),
    issues: z
      .array(z.object({
        code: z.string().describe("Whop's stable code, e.g. apple_pay_unverified"),
        message: z.string().describe('What needs doing and how, as Whop wrote it'),
        codeBlock: z.string().nullable().describe('Code Whop says to add to the site, ready to copy; null when none'),
        dnsRecords: z.array(z.object({ type: z.string(), name: z.string(), value: z.string() })).describe('The DNS records Whop asks for'),
      }))
      .describe("Whop's issues for Apple Pay on the host: what to do before checking again"),
    checkedAt: z.string().nullable().describe('When Whop was last asked'),
  })
  .meta({ id: 'ApplePayDomain' });

export const walletStatus = z
  .object({
    status: z
      .enum(['hosted', 'embedded', 'not_on_plan'])
      .describe("hosted: Whop's hosted checkout page offers Apple Pay and Google Pay, with no domain set-up; embedded: shoppers pay in Whop's embedded checkout on the checkout page, which offers Apple Pay only once Whop reports the checkout host verified (applePayDomain); not_on_plan: the plan has no wallet payments, so Whop's page is told not to offer them"),
    ready: z.boolean().describe("Shoppers' checkouts offer wallet payments now (the plan has them live, and on the embedded page Whop reports Apple Pay ready for the checkout host)"),
    statusMessage: z.string().describe('What this means for the shoppers, and what is missing'),
    applePayDomain: applePayDomainView.nullable().describe('On the embedded payment page: the checkout host registered with Whop for Apple Pay; null otherwise'),
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
export async function processorStatusOf(data: MerchantScope): Promise<ProcessorStatus> {
  const [row, latest] = await Promise.all([
    data.processorConnection.findFirst(),
    data.processorConnectionAttempts.findFirst({ where: { status: { not: 'REPLACED' } }, orderBy: { createdAt: 'desc' } }),
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
    const [connecting, disconnecting] = await Promise.all([isRunning(WORKFLOWS.processorConnect.id(merchantId)), isRunning(WORKFLOWS.processorDisconnect.id(merchantId))]);
    if (connecting) throw new AppError('CONFLICT', 'A Whop connection is already in progress: wait for it to finish');
    if (disconnecting) throw new AppError('CONFLICT', 'Whop is being disconnected: wait for it to finish');
  }

  /** Runs one of the merchant's processor workflows and waits for it; one at a time per id (else CONFLICT). */
  async function run<T>(workflowType: string, workflowId: string, input: ProcessorConnectionInput): Promise<T> {
    let handle;
    try {
      handle = await temporal.client.workflow.start<(input: ProcessorConnectionInput) => Promise<T>>(workflowType, {
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

  app.get('/processor', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:read' },
    schema: {
      tags,
      summary: 'Processor connection status, part by part (never the key or the webhook secret), and wallet payments',
      description:
        "`wallets`: Apple Pay and Google Pay. On Whop's hosted checkout page Whop offers them with no domain set-up: `hosted` when " +
        'the plan includes wallet payments (Growth; Demo: previews only). On the embedded payment page (the default), Whop\'s embed ' +
        'offers Apple Pay only on a checkout host Whop has registered with Apple: `embedded`, `ready` only when Whop reports ' +
        "`apple_pay.state` ready for the merchant's checkout host, with `applePayDomain` saying what is missing (Whop's issues: " +
        "message, DNS records, code; register with POST /api/merchant/processor/apple-pay-domain). `not_on_plan` when the plan lacks them (Whop's page is told not to offer " +
        'them, with the plan to choose). null while no processor is connected.',
      ...auth,
      response: { 200: processorStatus.extend({ wallets: walletStatus.nullable() }).meta({ id: 'ProcessorStatusWithWallets' }), 401: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const status = await processorStatusOf(request.merchantData);
    const wallets = await walletStatusView(db, config, merchantId);
    return { ...status, wallets };
  });

  app.post('/processor/apple-pay-domain', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:write' },
    schema: {
      tags,
      summary: "Register the checkout host with Whop for Apple Pay on the embedded checkout, or check it again",
      description:
        "Adds the merchant's own checkout host (its verified custom domain, else its subdomain; nothing in the request names a host) as a " +
        "domain on the merchant's Whop company with Whop's `apple_pay` capability (or adds the capability to it), or, once added, has Whop " +
        "check it again (after the merchant did what Whop's issue asks). Answers the wallet view with Whop's state and issues. CONFLICT (409) without a connected processor, " +
        'when the plan has no wallet payments, when the checkout does not use the embedded payment page (Whop\'s hosted page needs no ' +
        'domain), or while a registration is running; INVALID_PROCESSOR_KEY (422) when the key lacks Whop\'s ' +
        'domain:read and domain:manage permissions (Whop answers 403), or is refused; PROCESSOR_TIMEOUT (504); UPSTREAM_ERROR (502).',
      ...auth,
      // Nothing to send (an empty object or no body at all); a field, such as a hostname, is refused.
      body: z.strictObject({}).nullish(),
      response: { 200: walletStatus, 400: errorResponse, 401: errorResponse, 409: errorResponse, 422: errorResponse, 502: errorResponse, 504: errorResponse },
    },
  }, async (request) => {
    const { merchantId } = request.merchant;
    const before = await walletStatusView(db, config, merchantId);
    if (!before) throw new AppError('CONFLICT', 'Connect the processor first: Apple Pay is registered on its Whop company');
    if (before.status === 'not_on_plan') throw new AppError('CONFLICT', before.statusMessage);
    if (before.status !== 'embedded') throw new AppError('CONFLICT', "Shoppers pay on Whop's hosted page, which offers Apple Pay with no domain set-up: nothing to register");
    let handle;
    try {
      handle = await temporal.client.workflow.start<typeof applePayDomainWorkflow>(WORKFLOWS.applePayDomain.type, {
        workflowId: WORKFLOWS.applePayDomain.id(merchantId),
        taskQueue: config.temporal.taskQueue,
        args: [{ merchantId }],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
        workflowExecutionTimeout: WORKFLOW_TIMEOUT,
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) throw new AppError('CONFLICT', 'The checkout domain is being registered: wait for it to finish');
      throw err;
    }
    await handle.result();
    const after = await walletStatusView(db, config, merchantId);
    if (!after) throw new AppError('CONFLICT', 'The processor was disconnected meanwhile');
    return after;
  });

  app.post('/processor/connect', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:write' },
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
    const data = request.merchantData;
    const { merchantId } = data;
    const { apiKey } = request.body;
    await refuseWhileBusy(merchantId);

    const pending = await data.processorConnectionAttempts.findFirst({ where: { status: 'CONNECTING' }, orderBy: { createdAt: 'desc' } });
    if (pending && Date.now() - pending.createdAt.getTime() < STARTING_WINDOW_MS) {
      throw new AppError('CONFLICT', 'A Whop connection is already in progress: wait for it to finish');
    }
    // An attempt still CONNECTING here has no run left (it timed out); attempts with nothing left to clean up
    // (no webhook of theirs at the processor) are history. The connection itself is not touched.
    await data.processorConnectionAttempts.updateMany({ where: { status: 'CONNECTING' }, data: { status: 'FAILED', lastError: 'This connection attempt did not finish: connect again' } });
    await data.processorConnectionAttempts.deleteMany({ where: { status: { not: 'CONNECTING' }, webhookId: null } });
    const attempt = await data.processorConnectionAttempts.create({
      data: { status: 'CONNECTING', apiKeyEnc: secrets.encrypt(apiKey, processorAad.apiKey(merchantId)), apiKeyLast4: apiKey.slice(-4) },
    });
    try {
      await run<Awaited<ReturnType<typeof connectProcessorWorkflow>>>(WORKFLOWS.processorConnect.type, WORKFLOWS.processorConnect.id(merchantId), { merchantId, attemptId: attempt.id });
    } catch (err) {
      // Another connection won the start: this attempt never ran.
      if (err instanceof AppError && err.code === 'CONFLICT') await data.processorConnectionAttempts.deleteMany({ where: { id: attempt.id, status: 'CONNECTING', businessId: null } });
      throw err;
    }
    return processorStatusOf(data);
  });

  app.delete('/processor', {
    onRequest: app.authenticate,
    config: { apiKeyScope: 'connections:write' },
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
    const existing = await request.merchantData.processorConnection.findFirst({ select: { merchantId: true } });
    if (!existing) throw new AppError('NOT_FOUND', 'Whop is not connected');
    await refuseWhileBusy(merchantId);
    const { deleted } = await run<Awaited<ReturnType<typeof disconnectProcessorWorkflow>>>(WORKFLOWS.processorDisconnect.type, WORKFLOWS.processorDisconnect.id(merchantId), { merchantId });
    if (!deleted) throw new AppError('NOT_FOUND', 'Whop is not connected');
    return { connected: false as const };
  });
};

// Simulator of the payment processor: businesses behind API keys, products, payments with a hosted test
// payment page, full refunds, signed webhooks with retries, wallet domains, plans and memberships.
// Built on the shared simulator frame (fault injection, /_control/{health,reset,faults}).
import type { FastifyRequest } from 'fastify';
import { createSimulator, type Simulator, type SimulatorOptions } from '../shared/simulator.js';
import { apiRoutes } from './api.js';
import { controlRoutes } from './control.js';
import { hostedPageRoutes } from './hosted-page.js';
import { DEFAULT_API_KEY, DEFAULT_BUSINESS_ID, ProcessorState } from './state.js';
import { WebhookDispatcher } from './webhooks.js';

export interface ProcessorSimulatorOptions extends SimulatorOptions {
  /** Base URL of this simulator as browsers reach it, for payment_url. Default: the Host of each request. */
  publicUrl?: string | (() => string);
  /** Wait before each retry of a failed webhook delivery; after the last one it gives up. */
  webhookRetryDelaysMs?: number[];
  /** Time-out of one webhook delivery attempt (default 10 s). */
  webhookTimeoutMs?: number;
}

export interface ProcessorSimulator extends Simulator {
  /** The seeded account's API key (present at start and after every reset). */
  defaultApiKey: string;
  defaultBusinessId: string;
  /** Outgoing webhooks; `await sim.webhooks.idle()` waits until nothing is in flight or waiting to retry. */
  webhooks: WebhookDispatcher;
}

export function createProcessorSimulator(opts: ProcessorSimulatorOptions = {}): ProcessorSimulator {
  const sim = createSimulator('processor', opts);
  const webhooks = new WebhookDispatcher({
    targets: (businessId, event) => state.webhookTargets(businessId, event),
    targetExists: (id) => state.webhookExists(id),
    retryDelaysMs: opts.webhookRetryDelaysMs ?? [1_000, 4_000, 15_000],
    timeoutMs: opts.webhookTimeoutMs ?? 10_000,
  });
  const state = new ProcessorState((businessId, event, data) => void webhooks.publish(businessId, event, data));
  const idempotencyStores: Array<{ clear(): void }> = [];

  const pageUrl = (request: FastifyRequest) => {
    const configured = typeof opts.publicUrl === 'function' ? opts.publicUrl() : opts.publicUrl;
    const base = (configured || `${request.protocol}://${request.host}`).replace(/\/+$/, '');
    return (paymentId: string) => `${base}/pay/${encodeURIComponent(paymentId)}`;
  };

  void sim.app.register(apiRoutes, { prefix: '/v1', state, pageUrl, onIdempotencyStore: (store) => void idempotencyStores.push(store) });
  void sim.app.register(hostedPageRoutes, { state });
  void sim.app.register(controlRoutes, { prefix: '/_control', state, webhooks, pageUrl });

  sim.onReset(() => {
    webhooks.reset();
    state.reset();
    for (const store of idempotencyStores) store.clear();
  });
  sim.app.addHook('onClose', async () => webhooks.reset());

  return Object.assign(sim, { defaultApiKey: DEFAULT_API_KEY, defaultBusinessId: DEFAULT_BUSINESS_ID, webhooks });
}

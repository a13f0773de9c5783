// A local Whop, written from Whop's documentation (docs/processor.md): API v1 at /api/v1, the hosted checkout
// at purchase_url, the embedded checkout's iframe page (@whop/checkout), Standard Webhooks deliveries with Whop's retries, and the shared frame's fault injection
// (timeouts, 5xx, 429 with Retry-After) and /_control/{health,reset,faults}. It imports nothing from our
// client: the contract tests (test/contract/processor.test.ts) hold it to the official SDK instead.
import type { FastifyRequest } from 'fastify';
import { createSimulator, type Simulator, type SimulatorOptions } from '../shared/simulator.js';
import { apiRoutes } from './api.js';
import { controlRoutes } from './control.js';
import { DomainStore } from './domains.js';
import { embeddedPageRoutes } from './embedded-page.js';
import { hostedPageRoutes } from './hosted-page.js';
import { DEFAULT_API_KEY, DEFAULT_COMPANY_ID, WhopStore } from './store.js';
import { WebhookDispatcher, type WebhookTarget } from './webhooks.js';

/** Where the API lives under the simulator's origin, as under https://api.whop.com. */
export const API_PREFIX = '/api/v1';

export interface ProcessorSimulatorOptions extends SimulatorOptions {
  /** Base URL of this simulator as browsers reach it, for purchase_url. Default: the Host of each request. */
  publicUrl?: string | (() => string);
  /** Wait before each retry of a failed webhook delivery (Whop: 10, 20 and 40 s); after the last one it gives up. */
  webhookRetryDelaysMs?: number[];
  /** Time-out of one webhook delivery attempt (default 10 s). */
  webhookTimeoutMs?: number;
  /** How long after its answer an off-session charge (POST /payments) settles (default 50 ms). */
  chargeSettleMs?: number;
}

export interface ProcessorSimulator extends Simulator {
  /** The seeded company's API key (present at start and after every reset). */
  defaultApiKey: string;
  defaultBusinessId: string;
  store: WhopStore;
  /** The Domains API's claims (domains.ts). */
  domains: DomainStore;
  /** Outgoing webhooks; `await sim.webhooks.idle()` waits until nothing is in flight or waiting to retry. */
  webhooks: WebhookDispatcher;
}

export function createProcessorSimulator(opts: ProcessorSimulatorOptions = {}): ProcessorSimulator {
  const sim = createSimulator('processor', {
    ...opts,
    // Whop's error shape, for injected faults too (a 429 also carries Retry-After, set by the frame).
    faultBody: (status) => ({ error: status === 429 ? { type: 'rate_limit_exceeded', message: 'Try again in 1 seconds.' } : { type: 'internal_error', message: `injected fault (${status})` } }),
  });
  let muted = 0;
  const webhooks: WebhookDispatcher = new WebhookDispatcher({
    targets: (companyId, type): WebhookTarget[] => store.webhookTargets(companyId, type).map((w) => ({
      id: w.id, url: w.url, scheme: w.created_via === 'dashboard' ? 'standard-webhooks' : 'x-whop-signature', secrets: [webhooks.rotating.get(w.id), w.webhook_secret].filter((s): s is string => !!s),
    })),
    targetExists: (id) => store.webhooks.has(id),
    retryDelaysMs: opts.webhookRetryDelaysMs ?? [10_000, 20_000, 40_000],
    timeoutMs: opts.webhookTimeoutMs ?? 10_000,
  });
  const store = new WhopStore((companyId, type, data) => {
    if (muted === 0) webhooks.publish(companyId, type, data);
  });
  const domains = new DomainStore();
  const idempotencyStores: Array<{ clear(): void }> = [];
  const publicBase = (request: FastifyRequest) => {
    const configured = typeof opts.publicUrl === 'function' ? opts.publicUrl() : opts.publicUrl;
    return (configured || `${request.protocol}://${request.host}`).replace(/\/+$/, '');
  };
  const silently = <T>(fn: () => T): T => {
    muted += 1;
    try {
      return fn();
    } finally {
      muted -= 1;
    }
  };

  void sim.app.register(apiRoutes, { prefix: API_PREFIX, store, publicBase, chargeSettleMs: opts.chargeSettleMs ?? 50, onIdempotencyStore: (s) => void idempotencyStores.push(s), domains });
  void sim.app.register(hostedPageRoutes, { store });
  void sim.app.register(embeddedPageRoutes, { store });
  void sim.app.register(controlRoutes, { prefix: '/_control', store, webhooks, silently, domains });

  sim.onReset(() => {
    webhooks.reset();
    store.reset();
    domains.reset();
    for (const s of idempotencyStores) s.clear();
  });
  sim.app.addHook('onClose', async () => webhooks.reset());

  return Object.assign(sim, { defaultApiKey: DEFAULT_API_KEY, defaultBusinessId: DEFAULT_COMPANY_ID, store, domains, webhooks });
}

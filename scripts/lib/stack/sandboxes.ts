// The outside world of a test or a benchmark: every simulator on port 0, and the configuration variables
// that point the service at them. No vitest here (the benchmarks use it too; test/harness re-exports it).
import { createProcessorSimulator, type ProcessorSimulator } from '../../../sandbox/processor/index.js';
import { createStorefrontASimulator, DEMO_APP, type StorefrontASimulator } from '../../../sandbox/storefront-a/simulator.js';
import { deployThemeExtension } from '../theme-extension.js';
import { createStorefrontBSimulator, type StorefrontBSimulator } from '../../../sandbox/storefront-b/simulator.js';
import { createEmailSimulator, type EmailSimulator } from '../../../sandbox/email/index.js';
import { createWebhookReceiverSimulator, type WebhookReceiverSimulator } from '../../../sandbox/webhook-receiver/index.js';
import type { Simulator } from '../../../sandbox/shared/simulator.js';
import { createUrlGuard, type UrlGuard } from '../../../security/ssrf.js';

export interface Sandboxes {
  sims: { processor: ProcessorSimulator; storefrontA: StorefrontASimulator; storefrontB: StorefrontBSimulator; email: EmailSimulator; webhookReceiver: WebhookReceiverSimulator };
  urls: { processor: string; storefrontA: string; storefrontB: string; email: string; webhookReceiver: string };
  /** The configuration variables that point the service at these simulators. */
  env: Record<string, string>;
  /** Lets the service reach the simulators (they listen on loopback). */
  urlGuard: UrlGuard;
  close(): Promise<void>;
}

async function listen(sim: Simulator): Promise<string> {
  return sim.app.listen({ port: 0, host: '127.0.0.1' });
}

export interface SandboxOptions {
  /** Where storefront B's plugin sends checkouts. */
  serviceUrl?: string;
  /** How the URL guard resolves host names other than the simulators' (default: the system resolver). */
  resolveHost?: (host: string) => Promise<string[]>;
}

/** Every simulator on a port of its own. */
export async function startSandboxes(opts: SandboxOptions = {}): Promise<Sandboxes> {
  let processorUrl = '';
  let storefrontAUrl = '';
  let storefrontBUrl = '';
  let webhookReceiverUrl = '';
  const sims = {
    processor: createProcessorSimulator({ publicUrl: () => processorUrl, webhookRetryDelaysMs: [200, 500, 1000] }),
    storefrontA: createStorefrontASimulator({ publicUrl: () => storefrontAUrl }),
    storefrontB: createStorefrontBSimulator({ publicUrl: () => storefrontBUrl, serviceUrl: opts.serviceUrl }),
    email: createEmailSimulator(),
    webhookReceiver: createWebhookReceiverSimulator({ publicUrl: () => webhookReceiverUrl }),
  };
  processorUrl = await listen(sims.processor);
  storefrontAUrl = await listen(sims.storefrontA);
  storefrontBUrl = await listen(sims.storefrontB);
  const emailUrl = await listen(sims.email);
  webhookReceiverUrl = await listen(sims.webhookReceiver);
  // The demo app carries our theme app extension, as `shopify app deploy` leaves it (again after every reset).
  await deployThemeExtension(storefrontAUrl, DEMO_APP.clientId);
  sims.storefrontA.onReset(() => deployThemeExtension(storefrontAUrl, DEMO_APP.clientId));
  const urls = { processor: processorUrl, storefrontA: storefrontAUrl, storefrontB: storefrontBUrl, email: emailUrl, webhookReceiver: webhookReceiverUrl };
  return {
    sims,
    urls,
    env: {
      PROCESSOR_API_URL: `${processorUrl}/api/v1`,
      STOREFRONT_A_API_TEMPLATE: `${storefrontAUrl}/shops/{shop}`,
      POSTMARK_API_URL: emailUrl,
      POSTMARK_SERVER_TOKEN: 'sandbox-server-token',
    },
    urlGuard: createUrlGuard({ allowedOrigins: Object.values(urls), resolve: opts.resolveHost }),
    async close() {
      await Promise.all(Object.values(sims).map((s) => s.app.close()));
    },
  };
}

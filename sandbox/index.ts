// Starts every local simulator on its fixed port (config SANDBOX_PORTS) for `npm start` and lists the
// pages a person can open. Each simulator is also usable alone (tests start them on port 0).
import type { Config } from '../config/index.js';
import type { Simulator } from './shared/simulator.js';
import { createProcessorSimulator, type ProcessorSimulator } from './processor/index.js';
import { createStorefrontASimulator, type StorefrontASimulator } from './storefront-a/simulator.js';
import { createStorefrontBSimulator, type StorefrontBSimulator } from './storefront-b/simulator.js';
import { createEmailSimulator, type EmailSimulator } from './email/index.js';
import { createDnsSimulator } from './dns/index.js';
import { createEcbSimulator } from './ecb/index.js';
import { createWebhookReceiverSimulator, type WebhookReceiverSimulator } from './webhook-receiver/index.js';

export interface RunningSandbox {
  pages: Array<{ label: string; url: string }>;
  simulators: Simulator[];
  /** The simulators by name, for a runner that watches their state (the cluster's sandbox process). */
  sims: { processor: ProcessorSimulator; storefrontA: StorefrontASimulator; storefrontB: StorefrontBSimulator; email: EmailSimulator; webhookReceiver: WebhookReceiverSimulator };
  stop(): Promise<void>;
}

interface Entry {
  sim: Simulator;
  port: number;
  pages: Array<{ label: string; url: string }>;
  /** Anything the simulator serves besides its HTTP app (the DNS server's UDP/TCP port). */
  startExtra?: () => Promise<unknown>;
}

export async function startSandbox(config: Config): Promise<RunningSandbox> {
  const { host, ports, urls } = config.sandbox;
  const dns = createDnsSimulator({ udpPort: ports.dnsUdp, host });
  const sims = {
    processor: createProcessorSimulator({ publicUrl: urls.processor }),
    storefrontA: createStorefrontASimulator({ publicUrl: urls.storefrontA }),
    storefrontB: createStorefrontBSimulator({ publicUrl: urls.storefrontB, serviceUrl: config.publicApiUrl }),
    email: createEmailSimulator(),
    webhookReceiver: createWebhookReceiverSimulator({ publicUrl: urls.webhookReceiver }),
  };
  const entries: Entry[] = [
    {
      sim: sims.processor,
      port: ports.processor,
      pages: [{ label: 'processor', url: `${urls.processor}/_control/webhooks/deliveries   (test key apik_sandbox_demo)` }],
    },
    {
      sim: sims.storefrontA,
      port: ports.storefrontA,
      pages: [
        { label: 'store A', url: `${urls.storefrontA}/shops/demo-shop.myshopify.com/` },
        { label: 'store A admin', url: `${urls.storefrontA}/shops/demo-shop.myshopify.com/admin/orders` },
      ],
    },
    {
      sim: sims.storefrontB,
      port: ports.storefrontB,
      pages: [
        { label: 'store B', url: `${urls.storefrontB}/stores/demo/` },
        { label: 'store B admin', url: `${urls.storefrontB}/stores/demo/wp-admin/orders` },
      ],
    },
    { sim: sims.email, port: ports.email, pages: [{ label: 'mailbox', url: `${urls.email}/` }] },
    {
      sim: dns,
      port: ports.dnsControl,
      pages: [{ label: 'DNS records', url: `${urls.dnsControl}/_control/records   (DNS on udp+tcp ${host}:${ports.dnsUdp})` }],
      startExtra: () => dns.udp.start(),
    },
    { sim: createEcbSimulator(), port: ports.ecb, pages: [{ label: 'ECB rates', url: `${urls.ecb}/stats/eurofxref/eurofxref-daily.xml` }] },
    { sim: sims.webhookReceiver, port: ports.webhookReceiver, pages: [{ label: 'webhook receiver', url: `${urls.webhookReceiver}/   (endpoints: POST /_control/endpoints)` }] },
  ];
  const started: Simulator[] = [];
  try {
    for (const entry of entries) {
      await entry.sim.app.listen({ port: entry.port, host });
      started.push(entry.sim);
      await entry.startExtra?.();
    }
  } catch (err) {
    await Promise.all(started.map((s) => s.app.close()));
    throw new Error(`Could not start the sandbox: ${(err as Error).message} (is another \`npm start\` running?)`);
  }
  return {
    pages: entries.flatMap((e) => e.pages),
    simulators: started,
    sims,
    stop: async () => {
      await Promise.all(started.map((s) => s.app.close()));
    },
  };
}

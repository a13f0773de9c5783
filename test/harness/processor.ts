// Test support for the processor client and sandbox: the simulator on port 0, a client for it, a control
// helper, and a small webhook receiver (node:http on port 0) that records raw bodies, answers with
// scripted statuses, and doubles as the merchant's return page.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProcessorSimulator, type ProcessorSimulator, type ProcessorSimulatorOptions } from '../../sandbox/processor/simulator.js';
import { createProcessorClient, type ProcessorClient } from '../../integrations/processor/client.js';

export interface RunningProcessor {
  sim: ProcessorSimulator;
  baseUrl: string;
  client(opts?: { apiKey?: string; timeoutMs?: number }): ProcessorClient;
  /** The webhook endpoints registered with this key's company (read from the sandbox's state). */
  webhooksOf(apiKey: string): Array<{ id: string; url: string; events: string[] }>;
  /** Calls a /_control/ endpoint; answers status and JSON body. */
  control<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

export async function startProcessor(opts: ProcessorSimulatorOptions = {}): Promise<RunningProcessor> {
  let baseUrl = '';
  const sim = createProcessorSimulator({ publicUrl: () => baseUrl, ...opts });
  await sim.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(sim.app.server.address() as AddressInfo).port}`;
  return {
    sim,
    baseUrl,
    client: ({ apiKey = sim.defaultApiKey, timeoutMs } = {}) => createProcessorClient({ apiKey, baseUrl: `${baseUrl}/api/v1`, timeoutMs }),
    webhooksOf: (apiKey) => {
      const company = sim.store.accountByKey(apiKey)?.company.id;
      return [...sim.store.webhooks.values()].filter((w) => w.company_id === company).map(({ id, url, events }) => ({ id, url, events }));
    },
    control: async <T>(method: string, path: string, body?: unknown) => {
      const res = await fetch(`${baseUrl}/_control/${path.replace(/^\//, '')}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as T };
    },
    close: async () => {
      const closing = sim.app.close();
      // A request abandoned by a timed-out client can leave its keep-alive socket counted as busy.
      sim.app.server.closeAllConnections();
      await closing;
    },
  };
}

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Whop's envelope ({ id, type, data }); `event` in the spec's own format. */
  json: { id: string; type?: string; event?: string; data: { id: string; status: string; metadata: Record<string, string> } & Record<string, unknown> } & Record<string, unknown>;
  status: number;
}

export interface WebhookReceiver {
  url: string;
  /** Every POST, in arrival order, with the status it was answered. */
  received: ReceivedWebhook[];
  /** Every GET (the merchant's return page), as path + query. */
  visits: string[];
  /** Statuses for the next POSTs, in order; after them every POST gets 200. */
  respondWith(...statuses: number[]): void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const visits: string[] = [];
  const script: number[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      visits.push(req.url ?? '/');
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Back at the shop</p>');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const status = script.shift() ?? 200;
      received.push({ headers: req.headers, rawBody, json: JSON.parse(rawBody.toString('utf8')) as ReceivedWebhook['json'], status });
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ received: status < 300 }));
      for (const wake of waiters.splice(0)) wake();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    visits,
    respondWith: (...statuses) => void script.push(...statuses),
    waitFor: async (count, timeoutMs = 5_000) => {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} webhooks, received ${received.length}: ${received.map((r) => r.json.type ?? r.json.event).join(', ')}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => (clearTimeout(timer), resolve()));
        });
      }
      return received.slice(0, count);
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** The hosted page's form fields for a card. */
export function cardForm(cardNumber: string, expiry = '12/39', cvc = '123'): URLSearchParams {
  return new URLSearchParams({ card_number: cardNumber, expiry, cvc });
}

/** POSTs a form like a browser, without following the redirect. */
export function postForm(url: string, form: URLSearchParams): Promise<Response> {
  return fetch(url, { method: 'POST', body: form, redirect: 'manual' });
}

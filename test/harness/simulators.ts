// Test helpers: a simulator on a free port with its publicUrl known (and, for storefront B, the per-file set-up the
// client, exactly-once and contract tests share), and a tiny HTTP receiver standing in for the other side (our
// webhook endpoint, our checkout service).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createStorefrontBSimulator, type StorefrontBSimulator } from '../../sandbox/storefront-b/simulator.js';

export async function startSimulator<T extends { app: FastifyInstance }>(create: (publicUrl: () => string) => T): Promise<{ sim: T; url: string; close: () => Promise<void> }> {
  let url = '';
  const sim = create(() => url);
  await sim.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(sim.app.server.address() as AddressInfo).port}`;
  return { sim, url, close: () => sim.app.close() };
}

/**
 * The storefront B simulator for the tests of one file: started before them, reset before each, closed after.
 * Read `sim` and `url` inside tests (they are set once the file's tests start).
 */
export function useStorefrontBSimulator(): { readonly sim: StorefrontBSimulator; readonly url: string } {
  let started: { sim: StorefrontBSimulator; url: string; close: () => Promise<void> } | undefined;
  beforeAll(async () => {
    started = await startSimulator((publicUrl) => createStorefrontBSimulator({ publicUrl }));
  });
  afterAll(() => started?.close());
  beforeEach(() => started!.sim.reset());
  return {
    get sim() { return started!.sim; },
    get url() { return started!.url; },
  };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  json?: unknown;
  /** Wait this long before answering (to exceed a caller's time-out). */
  delayMs?: number;
}

/** An HTTP server on a free port that records every request and answers what `respond` says. */
export async function startReceiver(respond: (req: ReceivedRequest) => Reply = () => ({ status: 200, json: {} })) {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      received.push(request);
      const reply = respond(request);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(reply.json ?? {}));
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Retries a call while it fails with a retryable error, as a Temporal activity retry would. */
export async function withRetries<T>(call: () => Promise<T>, attempts = 5): Promise<{ result: T; attempts: number }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return { result: await call(), attempts: attempt };
    } catch (err) {
      if (attempt >= attempts || !(err as { retryable?: boolean }).retryable) throw err;
    }
  }
}

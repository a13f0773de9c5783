// A small closed-loop load generator for the HTTP benchmarks (autocannon is not a dependency): N clients,
// each sending its next request when the previous one answered, over real loopback HTTP with keep-alive
// (node:http, one socket per client), bounded by both a duration and a request count. A target and its
// baseline are measured in alternating slices (A B B A ...) so drift during the run (a growing table, a
// warming JIT, other load on the machine) falls on both alike.
import http from 'node:http';

export interface Target {
  name: string;
  method: 'GET' | 'POST';
  /** The URL of request i (lets a run rotate over several resources). */
  url(i: number): string;
  /** The JSON body of request i, if any. */
  body?(i: number): string;
  /** Further headers of request i (e.g. the plugin's signature of the body). */
  headers?(i: number): Record<string, string>;
  /** The answer every request must get; any other counts as an error and fails the run. */
  expectStatus: number;
}

export interface LoadFigures {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

export interface LoadOptions {
  concurrency: number;
  /** Measured time per target, split over the slices. */
  durationMs: number;
  /** Hard cap per target over all slices. */
  maxRequests: number;
  /** Slices per target (even: ABBA ordering). */
  slices?: number;
  /** Unmeasured requests per target first (JIT, pools, caches). */
  warmupRequests?: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function send(agent: http.Agent, method: string, url: string, body: string | undefined, extra: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const headers: http.OutgoingHttpHeaders = { ...extra, ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }) };
    const req = http.request({ agent, method, host: u.hostname, port: u.port, path: u.pathname + u.search, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${url}: no answer in 30 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

interface Run {
  latencies: number[];
  elapsedMs: number;
}

/** `concurrency` clients until the deadline or the request budget, whichever comes first. */
async function runFor(target: Target, agent: http.Agent, concurrency: number, durationMs: number, maxRequests: number, counter: { next: number }): Promise<Run> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + durationMs;
  let issued = 0;
  const client = async () => {
    while (performance.now() < deadline && issued < maxRequests) {
      issued++;
      const i = counter.next++;
      const t0 = performance.now();
      const res = await send(agent, target.method, target.url(i), target.body?.(i), target.headers?.(i));
      if (res.status !== target.expectStatus) {
        throw new Error(`${target.name}: ${target.method} ${target.url(i)} answered ${res.status}, expected ${target.expectStatus}: ${res.body.slice(0, 300)}`);
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return { latencies, elapsedMs: performance.now() - started };
}

/** Measures `target` and `baseline` alike, in alternating slices; answers each one's figures. */
export async function compareLoad(target: Target, baseline: Target, opts: LoadOptions): Promise<{ target: LoadFigures; baseline: LoadFigures }> {
  const slices = opts.slices ?? 4;
  const agents = new Map([target, baseline].map((t) => [t, new http.Agent({ keepAlive: true, maxSockets: opts.concurrency })]));
  const counters = new Map([target, baseline].map((t) => [t, { next: 0 }]));
  const totals = new Map([target, baseline].map((t) => [t, { latencies: [] as number[], elapsedMs: 0 }]));
  try {
    for (const t of [target, baseline]) {
      await runFor(t, agents.get(t)!, opts.concurrency, 60_000, opts.warmupRequests ?? 50, counters.get(t)!);
    }
    for (let s = 0; s < slices; s++) {
      // A B B A A B B A ...: each target is measured first as often as second.
      const order = s % 2 === 0 ? [target, baseline] : [baseline, target];
      for (const t of order) {
        const total = totals.get(t)!;
        const budget = Math.ceil(opts.maxRequests / slices);
        const run = await runFor(t, agents.get(t)!, opts.concurrency, opts.durationMs / slices, budget, counters.get(t)!);
        total.latencies.push(...run.latencies);
        total.elapsedMs += run.elapsedMs;
      }
    }
  } finally {
    for (const agent of agents.values()) agent.destroy();
  }
  const figures = (t: Target): LoadFigures => {
    const { latencies, elapsedMs } = totals.get(t)!;
    const sorted = [...latencies].sort((a, b) => a - b);
    return { requests: sorted.length, seconds: elapsedMs / 1000, rps: sorted.length / (elapsedMs / 1000), p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
  };
  return { target: figures(target), baseline: figures(baseline) };
}

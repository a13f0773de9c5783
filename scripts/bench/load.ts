// A small closed-loop load generator for the HTTP benchmarks (autocannon is not a dependency): N clients,
// each sending its next request when the previous one answered, over real loopback HTTP with keep-alive
// (node:http, one socket per client), bounded by both a duration and a request count. A target and its
// baseline (or several targets) are measured in alternating slices (A B B A ..., rotated for more than two)
// so drift during the run (a growing table, a warming JIT, other load on the machine) falls on all alike.
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
  /** Slices per target (a multiple of 2 × the number of targets: each target runs in each position equally often). */
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
  const [t, b] = await measureLoad([target, baseline], opts);
  return { target: t!, baseline: b! };
}

/**
 * Measures several targets alike: warm-up of each, then `slices` rounds in which every target runs one slice, the
 * order rotated and reversed from round to round (A B C, C B A, B C A, A C B, ...) so that each target runs in each
 * position equally often and drift (a growing table, a warming JIT, other load on the machine) falls on all alike.
 * Answers each target's figures, in the order given.
 */
export async function measureLoad(targets: readonly Target[], opts: LoadOptions): Promise<LoadFigures[]> {
  const slices = opts.slices ?? 4;
  const agents = targets.map(() => new http.Agent({ keepAlive: true, maxSockets: opts.concurrency }));
  const counters = targets.map(() => ({ next: 0 }));
  const totals = targets.map(() => ({ latencies: [] as number[], elapsedMs: 0 }));
  try {
    for (const [i, t] of targets.entries()) {
      await runFor(t, agents[i]!, opts.concurrency, 60_000, opts.warmupRequests ?? 50, counters[i]!);
    }
    for (let s = 0; s < slices; s++) {
      for (const i of sliceOrder(targets.length, s)) {
        const budget = Math.ceil(opts.maxRequests / slices);
        const run = await runFor(targets[i]!, agents[i]!, opts.concurrency, opts.durationMs / slices, budget, counters[i]!);
        totals[i]!.latencies.push(...run.latencies);
        totals[i]!.elapsedMs += run.elapsedMs;
      }
    }
  } finally {
    for (const agent of agents) agent.destroy();
  }
  return totals.map(({ latencies, elapsedMs }) => {
    const sorted = [...latencies].sort((a, b) => a - b);
    return { requests: sorted.length, seconds: elapsedMs / 1000, rps: sorted.length / (elapsedMs / 1000), p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
  });
}

/** Round s of n targets: rotated by s/2 and reversed on odd rounds (for two targets: A B, B A, B A, A B, ...). */
export function sliceOrder(n: number, s: number): number[] {
  const shift = Math.floor(s / 2) % n;
  const rotated = Array.from({ length: n }, (_, i) => (i + shift) % n);
  return s % 2 === 0 ? rotated : rotated.reverse();
}

// The chaos drill: a flash sale on the cluster while things break, then the exactly-once accounting.
// During the sale, at random points (random fractions of the shoppers through the card page):
//   - SIGKILL one worker, restart it after a random 1–3 s;
//   - SIGKILL one API replica (nginx sends new requests to the other; requests in flight on it fail and the
//     shopper retries, as a shopper clicks again), restart it after 1–3 s;
//   - freeze PostgreSQL (postmaster and every backend SIGSTOPped: every connection of the API, the workers
//     and the Temporal server hangs) for 3 s;
//   - the processor drops the next few webhooks (its drop control) twice, and redelivers random payment
//     webhooks as two concurrent copies all along (its redeliver control), which nginx spreads over both
//     replicas.
// Shoppers return from the processor's page through the checkout page's `pay` call (the path that recovers
// a dropped webhook). At the end every paid session must have exactly one store order and one of each
// email; the drill prints the counts and fails otherwise.
import { startCluster, type Cluster } from './cluster.js';
import { clusterTarget, runFlashSale, type SaleAccount } from '../bench/flash-sale.js';
import { PAYMENT_SUCCEEDED } from './observer.js';

export interface DrillOptions {
  shoppers: number;
  concurrency: number;
  log?: (line: string) => void;
  /** Seconds given to paid sessions to complete after the last shopper (default 150). */
  settleSeconds?: number;
}

export interface DrillOutcome {
  account: SaleAccount;
  shoppers: number;
  shopperErrors: number;
  events: string[];
  redeliveries: number;
  seconds: number;
  /** Why the drill failed; empty when it passed. */
  failures: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const between = (lo: number, hi: number) => lo + Math.random() * (hi - lo);

async function processorControl(cluster: Cluster, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${cluster.config.sandbox.urls.processor}/_control${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`processor control ${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

export async function runDrill(opts: DrillOptions): Promise<DrillOutcome> {
  const log = opts.log ?? (() => undefined);
  const t0 = Date.now();
  const events: string[] = [];
  const note = (line: string) => {
    const stamped = `+${((Date.now() - t0) / 1000).toFixed(1)}s ${line}`;
    events.push(stamped);
    log(`  [drill] ${stamped}`);
  };
  log('  [drill] starting the cluster …');
  const cluster = await startCluster({ log: (line) => log(`  [cluster] ${line}`) });
  const target = await clusterTarget(cluster);
  let done = 0;
  let saleOver = false;
  let redeliveries = 0;
  const failures: string[] = [];
  try {
    note(`cluster up: ${cluster.apis.length} API replicas, ${cluster.workers.length} workers (logs ${cluster.logDir})`);
    /** Resolves once `fraction` of the shoppers are through the card page (or the sale is over). */
    const at = async (fraction: number) => {
      while (!saleOver && done < fraction * opts.shoppers) await sleep(50);
    };
    const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
    const killAndRestart = async (what: 'worker' | 'API replica', list: Cluster['apis']) => {
      const victim = pick(list);
      await victim.kill();
      note(`SIGKILL ${victim.name} (${what})`);
      await sleep(between(1_000, 3_000));
      await victim.start();
      note(`${victim.name} restarted and ready (pid ${victim.pid})`);
    };
    const chaos = (async () => {
      await at(between(0.05, 0.15));
      const dropped = Math.max(1, Math.round(opts.shoppers * 0.03));
      await processorControl(cluster, '/webhooks/drop', { count: dropped });
      note(`processor drops the next ${dropped} webhooks`);
      await at(between(0.15, 0.35));
      await killAndRestart('worker', cluster.workers);
      await at(between(0.4, 0.6));
      await killAndRestart('API replica', cluster.apis);
      await at(between(0.6, 0.75));
      await processorControl(cluster, '/webhooks/drop', { count: dropped });
      note(`processor drops the next ${dropped} webhooks`);
      await at(between(0.75, 0.9));
      note('PostgreSQL frozen (SIGSTOP) for 3 s');
      await cluster.pausePostgres(3_000);
      note('PostgreSQL resumed (SIGCONT)');
    })();
    // Duplicates all along: a random payment webhook delivered again as two concurrent copies.
    const duplicates = (async () => {
      while (!saleOver) {
        await sleep(between(200, 600));
        const { events: sent } = (await processorControl(cluster, '/webhooks/events').catch(() => ({ events: [] }))) as { events: Array<{ id: string; event: string; state: string }> };
        const candidates = sent.filter((e) => e.event === PAYMENT_SUCCEEDED && e.state === 'sent');
        if (!candidates.length) continue;
        await processorControl(cluster, '/webhooks/redeliver', { eventId: pick(candidates).id, times: 2 }).catch(() => undefined);
        redeliveries += 1;
      }
    })();

    const sale = runFlashSale(target, {
      shoppers: opts.shoppers,
      concurrency: opts.concurrency,
      arrivalMs: 10 * 60_000,
      settleMs: (opts.settleSeconds ?? 150) * 1000,
      confirmOnReturn: true,
      attempts: 5,
      onShopperDone: (n) => (done = n),
      // Every chaos step has run (and its processes are back) before the accounting starts.
      beforeSettle: async () => {
        done = opts.shoppers;
        await chaos;
      },
      log,
    });
    const outcome = await sale.finally(() => (saleOver = true));
    await chaos;
    await duplicates;
    note(`redelivered ${redeliveries} webhooks as 2 copies each`);

    const a = outcome.account;
    const shopperErrors = outcome.results.filter((r) => r.error).length;
    if (a.paid === 0) failures.push('no session was paid');
    if (a.lost) failures.push(`${a.lost} paid sessions without a store order`);
    if (a.missingEmails) failures.push(`${a.missingEmails} paid sessions with an email missing`);
    if (a.duplicateOrders) failures.push(`${a.duplicateOrders} sessions with more than one store order`);
    if (a.duplicateEmails) failures.push(`${a.duplicateEmails} sessions with an email sent twice`);
    const planned = ['SIGKILL worker', 'SIGKILL api', 'PostgreSQL frozen', 'processor drops'];
    for (const p of planned) if (!events.some((e) => e.replace(/^\+\S+ /, '').toLowerCase().startsWith(p.toLowerCase()))) failures.push(`the drill step "${p}" did not run during the sale`);
    return { account: a, shoppers: outcome.results.length, shopperErrors, events, redeliveries, seconds: (Date.now() - t0) / 1000, failures };
  } finally {
    saleOver = true;
    await target.close();
    await cluster.stop();
  }
}

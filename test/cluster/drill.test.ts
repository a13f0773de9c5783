// The short chaos drill (npm run drill with a small sale): the cluster (real Temporal server on PostgreSQL,
// Redis, 2 workers, 2 API replicas behind nginx) loses a worker and an API replica to SIGKILL, has its
// PostgreSQL frozen for 3 s, and its processor drops and duplicates webhooks, while shoppers pay. Every paid
// session must end with exactly one store order and one of each email. Needs nginx and redis-server
// (Debian packages, installed by .ci/run) and the Temporal server build (npm run provision).
import { describe, expect, it } from 'vitest';
import { runDrill } from '../../scripts/cluster/drill.js';

describe('chaos drill on the cluster', () => {
  it('given workers and API replicas killed, PostgreSQL frozen, webhooks dropped and duplicated during a sale / every paid session has one order and one of each email', async () => {
    const lines: string[] = [];
    const outcome = await runDrill({ shoppers: 24, concurrency: 6, settleSeconds: 150, log: (line) => lines.push(line) });
    const summary = `${lines.join('\n')}\n${JSON.stringify(outcome.account)}`;
    expect(outcome.failures, summary).toEqual([]);
    expect(outcome.account.paid, summary).toBe(24);
    expect(outcome.account.completed, summary).toBe(24);
    expect(outcome.account.webhookDeliveries, summary).toBeGreaterThan(24);
  }, 360_000);
});

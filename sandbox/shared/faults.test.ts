import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from './simulator.js';

let sim: Simulator;
let base: string;
let resets = 0;

beforeAll(async () => {
  sim = createSimulator('example');
  sim.app.get('/thing', async () => ({ ok: true }));
  sim.onReset(() => void resets++);
  base = await sim.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await sim.app.close();
});

const addFault = (rule: object) =>
  fetch(`${base}/_control/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) });

describe('fault injection shared by every simulator', () => {
  it('given "the next 2 calls fail with 500" / the next 2 calls fail and the third succeeds', async () => {
    expect((await addFault({ mode: 'error', status: 500, count: 2 })).status).toBe(201);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${base}/thing`)).status);
    expect(statuses).toEqual([500, 500, 200]);
  });

  it('given a 429 fault / it answers 429 with Retry-After', async () => {
    await addFault({ mode: 'error', status: 429 });
    const res = await fetch(`${base}/thing`);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
  });

  it('given a slow fault / the call succeeds after the delay', async () => {
    await addFault({ mode: 'slow', delayMs: 300 });
    const started = Date.now();
    const res = await fetch(`${base}/thing`);
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('given a timeout fault / the call never answers, the client gives up, and the held call reads abandoned', async () => {
    const rule = (await (await addFault({ mode: 'timeout' })).json()) as { id: number };
    await expect(fetch(`${base}/thing`, { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect((await fetch(`${base}/thing`)).status).toBe(200);
    // The connection's close reaches the simulator a moment after the client's abort: wait for it, not for a time.
    const heldByRule = async () => ((await (await fetch(`${base}/_control/faults`)).json()) as { held: Array<{ ruleId: number }> }).held.filter((c) => c.ruleId === rule.id);
    await expect.poll(heldByRule, { timeout: 30_000, interval: 50 }).toEqual([{ ruleId: rule.id, method: 'GET', target: '/thing', outcome: 'abandoned' }]);
  });

  it('given a held call / while the client waits it reads holding, and a clear forgets it', async () => {
    const rule = (await (await addFault({ mode: 'timeout' })).json()) as { id: number };
    const gaveUp = new AbortController();
    const waiting = fetch(`${base}/thing`, { signal: gaveUp.signal }).catch(() => 'aborted');
    await expect.poll(() => sim.faults.held().filter((c) => c.ruleId === rule.id), { timeout: 30_000, interval: 50 }).toMatchObject([{ outcome: 'holding' }]);
    gaveUp.abort();
    expect(await waiting).toBe('aborted');
    await fetch(`${base}/_control/faults`, { method: 'DELETE' });
    expect(((await (await fetch(`${base}/_control/faults`)).json()) as { held: unknown[] }).held).toEqual([]);
  });

  it('given a fault matching another path / control routes and other paths are unaffected', async () => {
    await addFault({ mode: 'error', match: '/other', count: 1 });
    expect((await fetch(`${base}/thing`)).status).toBe(200);
    expect((await fetch(`${base}/_control/health`)).status).toBe(200);
    const { faults } = (await (await fetch(`${base}/_control/faults`)).json()) as { faults: unknown[] };
    expect(faults).toHaveLength(1);
  });

  it('given a malformed rule / it answers 400 and adds nothing', async () => {
    await fetch(`${base}/_control/faults`, { method: 'DELETE' });
    const res = await addFault({ mode: 'explode' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('INVALID_INPUT');
    expect(((await (await fetch(`${base}/_control/faults`)).json()) as { faults: unknown[] }).faults).toHaveLength(0);
  });

  it('given a reset / rules are cleared and the simulator reset hooks run', async () => {
    await addFault({ mode: 'error', count: 5 });
    const before = resets;
    await fetch(`${base}/_control/reset`, { method: 'POST' });
    expect(resets).toBe(before + 1);
    expect((await fetch(`${base}/thing`)).status).toBe(200);
  });
});

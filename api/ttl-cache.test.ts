import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache.js';

function clock() {
  let t = 1_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('TtlCache', () => {
  it('given a loaded key / within its time the value is reused, after it the key loads again', async () => {
    const c = clock();
    const cache = new TtlCache<number>(15_000, 10, c.now);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('k', load)).toBe(1);
    c.advance(14_999);
    expect(await cache.get('k', load)).toBe(1);
    c.advance(1);
    expect(await cache.get('k', load)).toBe(2);
    expect(loads).toBe(2);
  });

  it('given concurrent misses of one key / they share one load', async () => {
    const cache = new TtlCache<string>(1_000);
    let loads = 0;
    let release!: (v: string) => void;
    const load = () => (loads++, new Promise<string>((r) => (release = r)));
    const both = Promise.all([cache.get('k', load), cache.get('k', load)]);
    release('v');
    expect(await both).toEqual(['v', 'v']);
    expect(loads).toBe(1);
  });

  it('given a load that fails / the failure is not kept: the next get loads again', async () => {
    const cache = new TtlCache<string>(60_000);
    await expect(cache.get('k', () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
    expect(await cache.get('k', async () => 'back')).toBe('back');
  });

  it('given a time of 0 / every get loads', async () => {
    const cache = new TtlCache<number>(0);
    let loads = 0;
    await cache.get('k', async () => ++loads);
    await cache.get('k', async () => ++loads);
    expect(loads).toBe(2);
  });

  it('given more keys than its size / the oldest go first; delete forgets one key', async () => {
    const cache = new TtlCache<string>(60_000, 2);
    let loads = 0;
    const load = (v: string) => async () => (loads++, v);
    await cache.get('a', load('a'));
    await cache.get('b', load('b'));
    await cache.get('c', load('c'));
    expect(await cache.get('b', load('b2'))).toBe('b');
    expect(await cache.get('a', load('a2'))).toBe('a2');
    cache.delete('a');
    expect(await cache.get('a', load('a3'))).toBe('a3');
    expect(loads).toBe(5);
  });

  it('given keys partly cached / getMany reuses the cached ones and loads the others in one call; a key the batch lacks fails and is not kept', async () => {
    const c = clock();
    const cache = new TtlCache<string>(15_000, 10, c.now);
    const batches: string[][] = [];
    const load = (answer: Record<string, string>) => async (missing: string[]) => (batches.push(missing), new Map(Object.entries(answer).filter(([k]) => missing.includes(k))));
    const absent = (key: string) => new Error(`no ${key}`);
    expect(await cache.get('a', async () => 'a1')).toBe('a1');

    const [a, b, b2, x] = cache.getMany(['a', 'b', 'b', 'x'], load({ a: 'a2', b: 'b1' }), absent);
    expect([await a, await b, await b2]).toEqual(['a1', 'b1', 'b1']);
    await expect(x).rejects.toThrow('no x');
    expect(batches).toEqual([['b', 'x']]);

    const [b3, x2] = cache.getMany(['b', 'x'], load({ x: 'x1' }), absent);
    expect([await b3, await x2]).toEqual(['b1', 'x1']);
    expect(batches).toEqual([['b', 'x'], ['x']]);
    // Every key cached: no call at all.
    await Promise.all(cache.getMany(['a', 'b', 'x'], load({}), absent));
    expect(batches).toHaveLength(2);
    c.advance(15_000);
    await expect(Promise.all(cache.getMany(['a'], load({}), absent))).rejects.toThrow('no a');
  });

  it('given a time of 0 / getMany loads every key, in one call', async () => {
    const cache = new TtlCache<number>(0);
    const batches: string[][] = [];
    const load = async (missing: string[]) => (batches.push(missing), new Map(missing.map((k, i) => [k, i])));
    expect(await Promise.all(cache.getMany(['p', 'q', 'p'], load, (k) => new Error(k)))).toEqual([0, 1, 0]);
    expect(await Promise.all(cache.getMany(['p'], load, (k) => new Error(k)))).toEqual([0]);
    expect(batches).toEqual([['p', 'q'], ['p']]);
  });
});

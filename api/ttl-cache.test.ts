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
});

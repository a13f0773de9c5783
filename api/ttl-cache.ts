// A small in-process cache of values that may be a few seconds old: what checkout create reads on every
// request but changes rarely (a store's connection and plan, the FX rates, store prices). Each entry lives
// `ttlMs`; concurrent misses of one key share a single load; a failed load is not kept; beyond `maxEntries`
// the oldest entries go first. `ttlMs` 0 turns it off (every get loads).
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string, load: () => Promise<V>): Promise<V> {
    if (this.ttlMs <= 0) return load();
    const at = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > at) return hit.value;
    const value = load();
    this.entries.delete(key);
    this.entries.set(key, { value, expires: at + this.ttlMs });
    value.catch(() => {
      if (this.entries.get(key)?.value === value) this.entries.delete(key);
    });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  /** Forgets one key (this process only: other instances see the change when their entry expires). */
  delete(key: string): void {
    this.entries.delete(key);
  }
}

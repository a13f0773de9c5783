// A small in-process cache of values that may be a few seconds old: what checkout create reads on every
// request but changes rarely (a store's connection and plan, the FX rates, store prices). Each entry lives
// `ttlMs`; concurrent misses of one key share a single load; a failed load is not kept; beyond `maxEntries`
// the oldest entries go first. `ttlMs` 0 turns it off (every get loads). getMany loads the keys it misses in
// one call (a store's list read instead of one read per item).
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

  /**
   * The value of each key, in order: a cached one is reused, the others are loaded together by one call of
   * `loadMissing` (none when every key is cached). A key the batch does not answer fails with `absent(key)`, and
   * like any failure it is not kept.
   */
  getMany(keys: readonly string[], loadMissing: (missing: string[]) => Promise<ReadonlyMap<string, V>>, absent: (key: string) => Error): Array<Promise<V>> {
    const at = this.now();
    const missing = [...new Set(keys)].filter((key) => this.ttlMs <= 0 || !((this.entries.get(key)?.expires ?? 0) > at));
    let batch: Promise<ReadonlyMap<string, V>> | undefined;
    const load = (key: string) => async () => {
      const found = (await (batch ??= loadMissing(missing))).get(key);
      if (found === undefined) throw absent(key);
      return found;
    };
    const values = new Map<string, Promise<V>>();
    for (const key of keys) if (!values.has(key)) values.set(key, this.get(key, load(key)));
    return keys.map((key) => values.get(key)!);
  }

  /** Forgets one key (this process only: other instances see the change when their entry expires). */
  delete(key: string): void {
    this.entries.delete(key);
  }
}

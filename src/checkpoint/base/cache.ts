/** A cache entry's address: a namespace path and a key inside it. Same shape as LangGraph.js. */
export type CacheFullKey = [namespace: string[], key: string];

/** One entry to store; `ttl` is in seconds (none: kept until cleared). */
export interface CacheEntry<Value = unknown> {
  key: CacheFullKey;
  value: Value;
  ttl?: number;
}

/**
 * The cache port of LangGraph.js (`BaseCache`): what `compile({ cache })` takes for nodes with a
 * `cachePolicy`. Subclass it to put the cache elsewhere.
 */
export abstract class BaseCache<Value = unknown> {
  /** The entries found among `keys` (missing and expired ones are left out). */
  abstract get(keys: CacheFullKey[]): Promise<Array<{ key: CacheFullKey; value: Value }>>;
  /** Stores entries, replacing any under the same key. */
  abstract set(entries: CacheEntry<Value>[]): Promise<void>;
  /** Drops the entries of the given namespaces, or everything when none is given. */
  abstract clear(namespaces?: string[][]): Promise<void>;
}

const SEP = "\u0000";

/**
 * A cache in this process's memory, with per-entry expiry.
 *
 * @example
 * const cache = new InMemoryCache();
 * await cache.set([{ key: [["node"], "k"], value: 1, ttl: 60 }]);
 * await cache.get([[["node"], "k"]]); // [{ key: [["node"], "k"], value: 1 }]
 */
export class InMemoryCache<Value = unknown> extends BaseCache<Value> {
  private readonly entries = new Map<string, Map<string, { value: Value; expires?: number }>>();

  async get(keys: CacheFullKey[]): Promise<Array<{ key: CacheFullKey; value: Value }>> {
    const now = Date.now();
    const found: Array<{ key: CacheFullKey; value: Value }> = [];
    for (const key of keys) {
      const space = this.entries.get(key[0].join(SEP));
      const entry = space?.get(key[1]);
      if (entry === undefined) continue;
      if (entry.expires !== undefined && entry.expires <= now) {
        space?.delete(key[1]);
        continue;
      }
      found.push({ key, value: entry.value });
    }
    return found;
  }

  async set(entries: CacheEntry<Value>[]): Promise<void> {
    for (const { key, value, ttl } of entries) {
      const ns = key[0].join(SEP);
      let space = this.entries.get(ns);
      if (space === undefined) {
        space = new Map();
        this.entries.set(ns, space);
      }
      space.set(
        key[1],
        ttl === undefined ? { value } : { value, expires: Date.now() + ttl * 1000 },
      );
    }
  }

  async clear(namespaces?: string[][]): Promise<void> {
    if (namespaces === undefined || namespaces.length === 0) {
      this.entries.clear();
      return;
    }
    for (const ns of namespaces) this.entries.delete(ns.join(SEP));
  }
}

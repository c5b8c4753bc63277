/**
 * A hash index of join memories: one array per join key (one array when the join has no equality
 * test), in insertion order. Removal flags the entry dead (its owner sets `dead`) and counts it;
 * a bucket is compacted once half of it is dead, so removal is amortised O(1) without per-entry
 * map or link objects, and dead entries never pile up.
 */
interface Bucket<T> {
  readonly items: T[];
  dead: number;
}

export class KeyedBags<T extends { dead: boolean }> {
  private readonly map = new Map<unknown, Bucket<T>>();
  /** Buckets left empty; kept for reuse (a key often comes back, e.g. on modify) until many pile up. */
  private empty = 0;

  add(key: unknown, value: T): void {
    const bucket = this.map.get(key);
    if (bucket) {
      if (bucket.items.length === 0) this.empty--;
      bucket.items.push(value);
    } else this.map.set(key, { items: [value], dead: 0 });
  }

  /** The entries under `key` in insertion order, dead ones included (callers skip them). */
  get(key: unknown): T[] | undefined {
    return this.map.get(key)?.items;
  }

  /** Records that an entry under `key` died. */
  removed(key: unknown): void {
    const bucket = this.map.get(key);
    if (!bucket) return;
    const list = bucket.items;
    if (++bucket.dead * 2 < list.length) return;
    bucket.dead = 0;
    let j = 0;
    for (let i = 0; i < list.length; i++) {
      const v = list[i] as T;
      if (!v.dead) list[j++] = v;
    }
    list.length = j;
    if (j === 0 && ++this.empty > 1024 && this.empty * 2 > this.map.size) this.sweep();
  }

  private sweep(): void {
    for (const [key, bucket] of this.map) if (bucket.items.length === 0) this.map.delete(key);
    this.empty = 0;
  }

  /** Every live entry (no particular order). */
  *live(): IterableIterator<T> {
    for (const b of this.map.values()) for (const v of b.items) if (!v.dead) yield v;
  }

  clear(): void {
    this.map.clear();
    this.empty = 0;
  }
}

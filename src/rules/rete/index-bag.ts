/**
 * A hash index of join memories: one array per join key (one array when the join has no equality
 * test), in insertion order. Removal flags the entry dead (its owner sets `dead`) and counts it;
 * a bucket is compacted once half of it is dead, so removal is amortised O(1) without per-entry
 * map or link objects, and dead entries never pile up. Most keys hold one or two entries, so a
 * bucket is the bare array and dead counts live apart, only for buckets that have some.
 */
export class KeyedBags<T extends { dead: boolean }> {
  private readonly map = new Map<unknown, T[]>();
  private readonly deadCounts = new Map<unknown, number>();
  /** Buckets left empty; kept for reuse (a key often comes back, e.g. on modify) until many pile up. */
  private empty = 0;

  add(key: unknown, value: T): void {
    const bucket = this.map.get(key);
    if (bucket) {
      if (bucket.length === 0) this.empty--;
      bucket.push(value);
    } else this.map.set(key, [value]);
  }

  /** The entries under `key` in insertion order, dead ones included (callers skip them). */
  get(key: unknown): T[] | undefined {
    return this.map.get(key);
  }

  /** Records that an entry under `key` died. */
  removed(key: unknown): void {
    const list = this.map.get(key);
    if (!list) return;
    const dead = (this.deadCounts.get(key) ?? 0) + 1;
    if (dead * 2 < list.length) {
      this.deadCounts.set(key, dead);
      return;
    }
    if (dead > 1) this.deadCounts.delete(key);
    let j = 0;
    for (let i = 0; i < list.length; i++) {
      const v = list[i] as T;
      if (!v.dead) list[j++] = v;
    }
    list.length = j;
    if (j === 0 && ++this.empty > 1024 && this.empty * 2 > this.map.size) this.sweep();
  }

  private sweep(): void {
    for (const [key, bucket] of this.map) if (bucket.length === 0) this.map.delete(key);
    this.empty = 0;
  }

  /** Every live entry (no particular order). */
  *live(): IterableIterator<T> {
    for (const list of this.map.values()) for (const v of list) if (!v.dead) yield v;
  }

  clear(): void {
    this.map.clear();
    this.deadCounts.clear();
    this.empty = 0;
  }
}

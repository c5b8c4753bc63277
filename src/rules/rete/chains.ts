/**
 * A hashed memory as CLIPS 6.30 keeps its alpha and beta memories (reteutil.c, drive.c): a table
 * of buckets, each a doubly linked chain through the entries' own `next`/`prev` fields, every
 * entry carrying its join hash. Adding and removing an entry allocates nothing and costs O(1);
 * a lookup walks one bucket and skips entries whose hash differs (the caller confirms equal keys).
 * Within one hash, entries keep their insertion order, so a memory can be scanned oldest first
 * (alpha) or newest first (beta) as CLIPS does.
 */
export interface ChainEntry<E> {
  /** The join hash of the entry's key (0 when the memory is not hashed). */
  hash: number;
  next: E | null;
  prev: E | null;
}

const INITIAL_BUCKETS = 8;

export class HashChains<E extends ChainEntry<E>> {
  private heads: (E | null)[] = new Array(INITIAL_BUCKETS).fill(null);
  private tails: (E | null)[] = new Array(INITIAL_BUCKETS).fill(null);
  private mask = INITIAL_BUCKETS - 1;
  size = 0;

  /** The first entry of the bucket `hash` falls in (entries of other hashes may share it). */
  first(hash: number): E | null {
    return this.heads[hash & this.mask] as E | null;
  }

  /** Adds an entry after every other of its bucket (for oldest-first scans). */
  append(e: E): void {
    if (++this.size > this.heads.length) this.grow();
    this.link(e);
  }

  /** Adds an entry before every other of its bucket (for newest-first scans). */
  prepend(e: E): void {
    if (++this.size > this.heads.length) this.grow();
    const b = e.hash & this.mask;
    const head = this.heads[b] as E | null;
    e.prev = null;
    e.next = head;
    if (head) head.prev = e;
    else this.tails[b] = e;
    this.heads[b] = e;
  }

  /**
   * Takes an entry out. Its own `next` is left as it was, so a scan standing on it can go on
   * to the entry that followed it.
   */
  remove(e: E): void {
    const b = e.hash & this.mask;
    if (e.prev) e.prev.next = e.next;
    else this.heads[b] = e.next;
    if (e.next) e.next.prev = e.prev;
    else this.tails[b] = e.prev;
    e.prev = null;
    this.size--;
  }

  /** Every entry, bucket by bucket (no particular order across buckets). */
  *all(): IterableIterator<E> {
    for (const head of this.heads) for (let e = head; e; e = e.next) yield e;
  }

  clear(): void {
    this.heads = new Array(INITIAL_BUCKETS).fill(null);
    this.tails = new Array(INITIAL_BUCKETS).fill(null);
    this.mask = INITIAL_BUCKETS - 1;
    this.size = 0;
  }

  /** Doubles the table; each bucket's entries keep their order in the bucket they move to. */
  private grow(): void {
    const old = this.heads;
    const size = old.length * 2;
    this.heads = new Array(size).fill(null);
    this.tails = new Array(size).fill(null);
    this.mask = size - 1;
    for (const head of old) {
      let e = head;
      while (e) {
        const next: E | null = e.next;
        this.link(e);
        e = next;
      }
    }
  }

  private link(e: E): void {
    const b = e.hash & this.mask;
    const tail = this.tails[b] as E | null;
    e.next = null;
    e.prev = tail;
    if (tail) tail.next = e;
    else this.heads[b] = e;
    this.tails[b] = e;
  }
}

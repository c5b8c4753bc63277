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
  /**
   * Bucket b's first entry at 2b and its last at 2b + 1: a large memory's buckets are read at
   * random, and one array keeps a bucket's two ends in one cache line (one miss, not two).
   */
  private ends: (E | null)[];
  private mask: number;
  size = 0;

  /**
   * `hashed` false: every entry hashes to 0 (a join without an equality test), so the table
   * keeps one bucket and never grows (growing would only relink the one chain).
   */
  constructor(private readonly hashed = true) {
    const buckets = hashed ? INITIAL_BUCKETS : 1;
    this.ends = new Array(2 * buckets).fill(null);
    this.mask = buckets - 1;
  }

  /** The first entry of the bucket `hash` falls in (entries of other hashes may share it). */
  first(hash: number): E | null {
    return this.ends[(hash & this.mask) << 1] as E | null;
  }

  // A table grows once it holds more entries than half its buckets (`ends` has two slots per
  // bucket): a lookup then meets about half as many entries of other hashes as at one entry per
  // bucket (each a likely cache miss in a large memory), for two more pointers per entry.

  /** Adds an entry after every other of its bucket (for oldest-first scans). */
  append(e: E): void {
    if (++this.size > this.ends.length >> 2 && this.hashed) this.grow();
    this.link(e);
  }

  /** Adds an entry before every other of its bucket (for newest-first scans). */
  prepend(e: E): void {
    if (++this.size > this.ends.length >> 2 && this.hashed) this.grow();
    const ends = this.ends;
    const b = (e.hash & this.mask) << 1;
    const head = ends[b] as E | null;
    e.prev = null;
    e.next = head;
    if (head) head.prev = e;
    else ends[b + 1] = e;
    ends[b] = e;
  }

  /**
   * Takes an entry out. Its own `next` is left as it was, so a scan standing on it can go on
   * to the entry that followed it.
   */
  remove(e: E): void {
    const ends = this.ends;
    const b = (e.hash & this.mask) << 1;
    const prev = e.prev;
    const next = e.next;
    if (prev) prev.next = next;
    else ends[b] = next;
    if (next) next.prev = prev;
    else ends[b + 1] = prev;
    e.prev = null;
    this.size--;
  }

  /** Every entry, bucket by bucket (no particular order across buckets). */
  *all(): IterableIterator<E> {
    const ends = this.ends;
    for (let b = 0; b < ends.length; b += 2) for (let e = ends[b] ?? null; e; e = e.next) yield e;
  }

  clear(): void {
    const buckets = this.hashed ? INITIAL_BUCKETS : 1;
    this.ends = new Array(2 * buckets).fill(null);
    this.mask = buckets - 1;
    this.size = 0;
  }

  /** Doubles the table; each bucket's entries keep their order in the bucket they move to. */
  private grow(): void {
    const old = this.ends;
    const buckets = old.length;
    this.ends = new Array(2 * buckets).fill(null);
    this.mask = buckets - 1;
    for (let b = 0; b < old.length; b += 2) {
      let e = old[b] ?? null;
      while (e) {
        const next: E | null = e.next;
        this.link(e);
        e = next;
      }
    }
  }

  private link(e: E): void {
    const ends = this.ends;
    const b = (e.hash & this.mask) << 1;
    const tail = ends[b + 1] as E | null;
    e.next = null;
    e.prev = tail;
    if (tail) tail.next = e;
    else ends[b] = e;
    ends[b + 1] = e;
  }
}

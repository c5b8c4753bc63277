interface Link<T> {
  value: T;
  prev: Link<T> | null;
  next: Link<T> | null;
}

/**
 * An insertion-ordered collection iterated newest first, with O(1) add and remove.
 * CLIPS visits partial matches newest first; the agenda order of activations created by one
 * assertion depends on it.
 */
export class Bag<T> {
  private head: Link<T> | null = null;
  private tail: Link<T> | null = null;
  private readonly links = new Map<T, Link<T>>();

  /** @param oldestFirst iterate in insertion order instead (CLIPS's alpha memories). */
  constructor(private readonly oldestFirst = false) {}

  get size(): number {
    return this.links.size;
  }

  add(value: T): void {
    let link: Link<T>;
    if (this.oldestFirst) {
      link = { value, prev: this.tail, next: null };
      if (this.tail) this.tail.next = link;
      else this.head = link;
      this.tail = link;
    } else {
      link = { value, prev: null, next: this.head };
      if (this.head) this.head.prev = link;
      else this.tail = link;
      this.head = link;
    }
    this.links.set(value, link);
  }

  delete(value: T): boolean {
    const link = this.links.get(value);
    if (!link) return false;
    this.links.delete(value);
    if (link.prev) link.prev.next = link.next;
    else this.head = link.next;
    if (link.next) link.next.prev = link.prev;
    else this.tail = link.prev;
    return true;
  }

  has(value: T): boolean {
    return this.links.has(value);
  }

  /** Newest first (or oldest first, see the constructor). Safe against removal of the current element while iterating. */
  *[Symbol.iterator](): IterableIterator<T> {
    let link = this.head;
    while (link) {
      const next = link.next;
      yield link.value;
      link = next;
    }
  }

  /** Newest first, as an array (a stable copy). */
  toArray(): T[] {
    const out: T[] = [];
    for (let link = this.head; link; link = link.next) out.push(link.value);
    return out;
  }

  clear(): void {
    this.head = null;
    this.tail = null;
    this.links.clear();
  }
}

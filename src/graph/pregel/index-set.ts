/**
 * A set of small integers (channel indices below a fixed bound) kept as flags and a list in the
 * order they were added. A `Set<number>` costs a hash insert per add and an iterator object per
 * walk, and shortening an array (`length = 0`) is a call into V8's runtime; a run marks channels
 * at every step, so this is flags, an array that only grows, and a count.
 */
export class IndexSet {
  /** The members are `items[0 … size - 1]`, in the order they were added. */
  size = 0;
  readonly items: number[] = [];
  private readonly flags: Uint8Array;

  constructor(bound: number) {
    this.flags = new Uint8Array(bound);
  }

  has(index: number): boolean {
    return this.flags[index] === 1;
  }

  add(index: number): void {
    if (this.flags[index] === 1) return;
    this.flags[index] = 1;
    this.items[this.size++] = index;
  }

  clear(): void {
    const { items, flags } = this;
    for (let i = 0; i < this.size; i += 1) flags[items[i]!] = 0;
    this.size = 0;
  }
}

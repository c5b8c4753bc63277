/**
 * An append-only log that any number of readers iterate from its start, each at its own pace,
 * waiting for more until it is closed. What a v3 run stream hands out (its events, its values,
 * its subgraphs, a transformer's channels) are such logs: a reader that starts late misses
 * nothing, and reading one does not consume it for another.
 */
export class EventLog<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private closed = false;
  private error: { value: unknown } | undefined;
  private wake: Array<() => void> = [];

  push(item: T): void {
    if (this.closed) return;
    this.items.push(item);
    this.notify();
  }

  /** Ends the log; readers that reach the end then finish (or throw `error`). */
  close(error?: { value: unknown }): void {
    if (this.closed) return;
    this.closed = true;
    this.error = error;
    this.notify();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** What was pushed so far. */
  snapshot(): readonly T[] {
    return this.items;
  }

  private notify(): void {
    const waiting = this.wake;
    this.wake = [];
    for (const resolve of waiting) resolve();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let index = 0;
    for (;;) {
      if (index < this.items.length) {
        yield this.items[index++] as T;
        continue;
      }
      if (this.closed) {
        if (this.error) throw this.error.value;
        return;
      }
      await new Promise<void>((resolve) => this.wake.push(resolve));
    }
  }
}

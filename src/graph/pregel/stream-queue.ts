/**
 * A one-consumer async queue: the run pushes chunks as it goes, the caller pulls them with
 * `for await`. The run is never blocked by a slow reader (chunks are buffered).
 */
export class StreamQueue<T> implements AsyncIterableIterator<T> {
  private readonly buffer: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private failWaiting: ((error: unknown) => void) | undefined;
  private done = false;
  private error: { value: unknown } | undefined;

  /** `onReturn` runs when the reader stops early, so the producer can stop too. */
  constructor(private readonly onReturn?: () => void) {}

  push(chunk: T): void {
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      this.failWaiting = undefined;
      resolve({ value: chunk, done: false });
    } else {
      this.buffer.push(chunk);
    }
  }

  close(error?: { value: unknown }): void {
    this.done = true;
    this.error = error;
    if (this.waiting) {
      const resolve = this.waiting;
      const reject = this.failWaiting!;
      this.waiting = undefined;
      this.failWaiting = undefined;
      if (error) reject(error.value);
      else resolve({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.buffer.length > 0)
      return Promise.resolve({ value: this.buffer.shift()!, done: false });
    if (this.done) {
      if (this.error) {
        const error = this.error.value;
        this.error = undefined;
        return Promise.reject(error);
      }
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failWaiting = reject;
    });
  }

  return(): Promise<IteratorResult<T>> {
    if (!this.done) this.onReturn?.();
    this.done = true;
    this.buffer.length = 0;
    return Promise.resolve({ value: undefined, done: true });
  }

  /** Stops reading, as `return()` (the name a web `ReadableStream`, LangGraph.js's stream, uses). */
  cancel(): Promise<void> {
    return this.return().then(() => undefined);
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}

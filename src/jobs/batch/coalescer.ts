interface Waiting<Request, Result> {
  key: string | undefined;
  request: Request;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs requests that arrive while a batch is in flight as one batch: a lone caller's request
 * goes out at once (no timer, no added latency); under load, callers that would each have made
 * a round trip and a commit share one. Requests with different keys never share a batch; a
 * request without a key joins any batch.
 */
export class Coalescer<Request, Result> {
  readonly #waiting: Waiting<Request, Result>[] = [];
  #inFlight = false;

  constructor(
    private readonly runBatch: (requests: Request[]) => Promise<Result[]>,
    private readonly keyOf: (request: Request) => string | undefined = () => undefined,
    private readonly maxBatch = 256,
  ) {}

  /** Queues one request; resolves with its own result once its batch has run. */
  submit(request: Request): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.#waiting.push({ key: this.keyOf(request), request, resolve, reject });
      if (!this.#inFlight) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#inFlight = true;
    while (this.#waiting.length > 0) {
      let key = this.#waiting.find((entry) => entry.key !== undefined)?.key;
      const batch: Waiting<Request, Result>[] = [];
      for (let i = 0; i < this.#waiting.length && batch.length < this.maxBatch; ) {
        const entry = this.#waiting[i];
        if (entry && (entry.key === undefined || entry.key === key)) {
          key ??= entry.key;
          batch.push(entry);
          this.#waiting.splice(i, 1);
        } else i++;
      }
      try {
        const results = await this.runBatch(batch.map((entry) => entry.request));
        for (const [i, entry] of batch.entries()) entry.resolve(results[i] as Result);
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
      // Let the callers just answered ask again before the next batch forms: a loop whose job
      // takes no time would otherwise miss it and wait a whole batch, and the loops would settle
      // into two half-size batches taking turns.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.#inFlight = false;
  }
}

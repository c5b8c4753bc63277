/** One server-sent event of a run's stream. */
export interface RunEvent {
  id: number;
  event: string;
  data: unknown;
}

/**
 * The stream of a run this server executes: every event in order, kept while the run lives (and
 * a while after) so that `join` and `joinStream` made after the start see it all.
 */
export class LiveRun {
  readonly events: RunEvent[] = [];
  private readonly listeners = new Set<(event: RunEvent | null) => void>();
  private finished = false;
  readonly done: Promise<void>;
  private resolveDone!: () => void;

  constructor(
    readonly runId: string,
    readonly threadId: string,
  ) {
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  get isFinished(): boolean {
    return this.finished;
  }

  emit(event: string, data: unknown): void {
    if (this.finished) return;
    const item: RunEvent = { id: this.events.length, event, data };
    this.events.push(item);
    for (const listener of this.listeners) listener(item);
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    for (const listener of this.listeners) listener(null);
    this.listeners.clear();
    this.resolveDone();
  }

  /** Replays the events after `afterId`, then follows live ones; `null` marks the end. */
  follow(listener: (event: RunEvent | null) => void, afterId = -1): () => void {
    for (const event of this.events) if (event.id > afterId) listener(event);
    if (this.finished) {
      listener(null);
      return () => {};
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

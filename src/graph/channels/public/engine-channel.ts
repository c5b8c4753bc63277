import type { Channel } from "../channel.js";

/** The part of LangGraph's channel contract the engine uses (structural, to avoid a cycle). */
interface StepChannel {
  update(values: unknown[]): boolean;
  get(): unknown;
  isAvailable(): boolean;
  consume(): boolean;
  checkpoint(): unknown;
  fromCheckpoint(checkpoint?: never): StepChannel;
}

/**
 * Runs a LangGraph-style channel inside Keel's engine, which hands writes over one at a time:
 * the writes of a step are collected and the step is replayed on the value the channel had
 * before it, so `update` always sees the whole step at once (as in LangGraph.js).
 */
export class EngineChannel implements Channel {
  private before: unknown;
  private pending: unknown[] = [];

  /**
   * @param reducer the channel's reducer, when it has one a caller may look for (a messages
   *   reducer makes the graph load LangChain before a run).
   */
  constructor(
    private inner: StepChannel,
    readonly reducer?: unknown,
  ) {}

  has(): boolean {
    return this.inner.isAvailable();
  }

  get(): unknown {
    return this.inner.isAvailable() ? this.inner.get() : undefined;
  }

  write(value: unknown, firstInStep: boolean): void {
    if (firstInStep) {
      this.before = this.inner.checkpoint();
      this.pending = [value];
      this.inner.update(this.pending);
      return;
    }
    this.pending.push(value);
    const replay = this.inner.fromCheckpoint(this.before as never);
    replay.update(this.pending);
    this.inner = replay;
  }

  fold(current: unknown, hasCurrent: boolean, value: unknown): unknown {
    const copy = this.inner.fromCheckpoint(undefined);
    if (hasCurrent) copy.update([current]);
    copy.update([value]);
    return copy.isAvailable() ? copy.get() : undefined;
  }

  consume(): boolean {
    return this.inner.consume();
  }

  snapshot(): unknown {
    return this.inner.checkpoint();
  }

  restore(value: unknown): void {
    this.inner = this.inner.fromCheckpoint(value as never);
  }
}

import type { Channel } from "./channel.js";

/**
 * `join:a+b:c` for `addEdge(["a", "b"], "c")`: remembers which sources have finished, across
 * steps. It is complete (and triggers `c`) once every source has finished since `c` last ran;
 * `c` consumes it, which starts the wait again.
 */
export class JoinBarrier implements Channel {
  private readonly seen = new Set<string>();

  constructor(private readonly sources: readonly string[]) {}

  /** True once some source has finished: partial progress is state and is checkpointed. */
  has(): boolean {
    return this.seen.size > 0;
  }

  /** True when every source has finished: the target runs next. */
  isComplete(): boolean {
    return this.seen.size === this.sources.length;
  }

  get(): unknown {
    return this.isComplete() ? null : undefined;
  }

  write(value: unknown): void {
    this.seen.add(value as string);
  }

  fold(): unknown {
    return null;
  }

  consume(): boolean {
    if (this.seen.size !== this.sources.length) return false;
    this.seen.clear();
    return true;
  }

  snapshot(): unknown {
    return [...this.seen].sort();
  }

  restore(value: unknown): void {
    this.seen.clear();
    for (const name of value as string[]) this.seen.add(name);
  }
}

import { InvalidUpdateError } from "../errors.js";
import type { Channel } from "./channel.js";

/**
 * A state key without a reducer: keeps the last value written. Two writes in the same super-step
 * are a conflict (which one wins would depend on scheduling), so the second is refused with
 * `INVALID_CONCURRENT_GRAPH_UPDATE`, as LangGraph.js does.
 */
export class LastValue implements Channel {
  private value: unknown;
  private present = false;

  constructor(
    private readonly key: string,
    initial?: () => unknown,
  ) {
    if (initial) {
      this.value = initial();
      this.present = true;
    }
  }

  has(): boolean {
    return this.present;
  }

  get(): unknown {
    return this.value;
  }

  write(value: unknown, firstInStep: boolean, writer: string): void {
    if (!firstInStep) {
      throw new InvalidUpdateError(
        `State key "${this.key}" received more than one value in the same step (the last from node "${writer}"); it keeps only the last value, so concurrent writes conflict.`,
        {
          code: "INVALID_CONCURRENT_GRAPH_UPDATE",
          details: { key: this.key, node: writer },
          hint: `Give "${this.key}" a reducer, e.g. Annotation<T[]>({ reducer: (a, b) => a.concat(b), default: () => [] }), or let only one node write it per step.`,
        },
      );
    }
    this.value = value;
    this.present = true;
  }

  fold(_current: unknown, _hasCurrent: boolean, value: unknown): unknown {
    return value;
  }

  consume(): boolean {
    return false;
  }

  snapshot(): unknown {
    return this.value;
  }

  restore(value: unknown): void {
    this.value = value;
    this.present = true;
  }
}

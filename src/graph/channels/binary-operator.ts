import { KeelError } from "../../core/index.js";
import { InvalidUpdateError } from "../errors.js";
import { overwriteOf } from "../overwrite.js";
import type { Channel } from "./channel.js";

/** A reducer: combines the current value with one written value. */
export type BinaryOperator<Value, Update = Value> = (current: Value, update: Update) => Value;

/**
 * A state key with a reducer: every write in a step is folded into the value in task order
 * (the order of LangGraph.js: nodes by name, then `Send`s in the order they were made).
 * A reducer that throws fails the step with `REDUCER_FAILED`, naming the key and the node.
 */
export class BinaryOperatorAggregate implements Channel {
  private value: unknown;
  private present = false;
  /** An `Overwrite` was written in the current step: it wins, later writes of the step drop. */
  private overwritten = false;

  constructor(
    private readonly key: string,
    private readonly reducer: BinaryOperator<unknown, unknown>,
    initial?: () => unknown,
  ) {
    if (initial) {
      this.value = initial();
      this.present = true;
    }
  }

  /** The reducer (how the graph tells a messages key, whose values need LangChain loaded). */
  get operator(): BinaryOperator<unknown, unknown> {
    return this.reducer;
  }

  has(): boolean {
    return this.present;
  }

  get(): unknown {
    return this.value;
  }

  write(value: unknown, firstInStep: boolean, writer: string): void {
    if (firstInStep) this.overwritten = false;
    const over = overwriteOf(value);
    if (over) {
      if (this.overwritten) throw this.twoOverwrites(writer);
      this.overwritten = true;
      this.value = over.value;
      this.present = true;
      return;
    }
    if (this.overwritten) return;
    if (!this.present) {
      this.value = value;
      this.present = true;
      return;
    }
    this.value = this.reduce(this.value, value, writer);
  }

  fold(current: unknown, hasCurrent: boolean, value: unknown, writer: string): unknown {
    const over = overwriteOf(value);
    if (over) return over.value;
    return hasCurrent ? this.reduce(current, value, writer) : value;
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

  private twoOverwrites(writer: string): InvalidUpdateError {
    return new InvalidUpdateError(
      `State key "${this.key}" was overwritten twice in one step (the second time by node "${writer}").`,
      {
        details: { key: this.key, node: writer },
        hint: "Let one node return Overwrite(...) for this key per step.",
      },
    );
  }

  private reduce(current: unknown, value: unknown, writer: string): unknown {
    try {
      return this.reducer(current, value);
    } catch (error) {
      throw new KeelError(
        "REDUCER_FAILED",
        `The reducer of state key "${this.key}" threw on a write from node "${writer}": ${(error as Error)?.message ?? String(error)}`,
        {
          cause: error,
          details: { key: this.key, node: writer },
          hint: "Fix the reducer or the value the node returns for this key.",
        },
      );
    }
  }
}

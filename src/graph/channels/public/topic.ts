import { EmptyChannelError } from "../../errors.js";
import { BaseChannel } from "./base-channel.js";

/** Options of {@link Topic}. */
export interface TopicOptions {
  /** Drop a value that was ever published before (default false). */
  unique?: boolean;
  /** Keep values across steps instead of starting each step empty (default false). */
  accumulate?: boolean;
}

type TopicSnapshot<Value> = Value[] | [Value[], Value[]];

/**
 * A pub/sub list: each step's writes (an array write publishes each element) form the value.
 * With `accumulate` the list grows across steps; with `unique` a value is published once. A
 * unique topic checkpoints `[seen, values]` so de-duplication survives a restore.
 *
 * @example
 * const t = new Topic<string>({ accumulate: true });
 * t.update(["a", ["b", "c"]]); t.get(); // ["a", "b", "c"]
 */
export class Topic<Value = unknown> extends BaseChannel<
  Value[],
  Value | Value[],
  TopicSnapshot<Value>
> {
  lc_graph_name = "Topic";
  private values: Value[] = [];
  private seen = new Set<Value>();

  constructor(readonly options: TopicOptions = {}) {
    super();
  }

  update(writes: Array<Value | Value[]>): boolean {
    let changed = false;
    if (!this.options.accumulate && this.values.length > 0) {
      this.values = [];
      changed = true;
    }
    for (const write of writes) {
      for (const value of Array.isArray(write) ? write : [write]) {
        if (this.options.unique) {
          if (this.seen.has(value)) continue;
          this.seen.add(value);
        }
        this.values.push(value);
        changed = true;
      }
    }
    return changed;
  }

  get(): Value[] {
    if (this.values.length === 0) throw new EmptyChannelError("The Topic channel is empty.");
    return this.values;
  }

  override isAvailable(): boolean {
    return this.values.length > 0;
  }

  checkpoint(): TopicSnapshot<Value> {
    return this.options.unique ? [[...this.seen], [...this.values]] : [...this.values];
  }

  fromCheckpoint(checkpoint?: TopicSnapshot<Value>): this {
    const made = new Topic<Value>(this.options);
    if (checkpoint === undefined) return made as this;
    const paired =
      this.options.unique &&
      checkpoint.length === 2 &&
      Array.isArray(checkpoint[0]) &&
      Array.isArray(checkpoint[1]);
    const [seen, values] = paired
      ? (checkpoint as [Value[], Value[]])
      : [checkpoint as Value[], checkpoint as Value[]];
    made.values = [...values];
    if (this.options.unique) made.seen = new Set(seen);
    return made as this;
  }

  override equals(other: BaseChannel): boolean {
    return (
      other instanceof Topic &&
      !!other.options.unique === !!this.options.unique &&
      !!other.options.accumulate === !!this.options.accumulate
    );
  }
}

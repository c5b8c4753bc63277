import { EmptyChannelError, InvalidUpdateError } from "../../errors.js";
import { overwriteOf } from "../../overwrite.js";
import { BaseChannel } from "./base-channel.js";

/**
 * A key with a reducer: a step's writes are folded into the value in order. An `Overwrite`
 * (or `{ __overwrite__: v }`) sets the value without the reducer and wins the step: later writes
 * of that step are dropped, and a second overwrite in one step is an `InvalidUpdateError`.
 *
 * @example
 * const sum = new BinaryOperatorAggregate<number>((a, b) => a + b, () => 0);
 * sum.update([1, 2, 3]); sum.get(); // 6
 */
export class BinaryOperatorAggregate<Value = unknown, Update = Value> extends BaseChannel<
  Value,
  Update,
  Value
> {
  lc_graph_name = "BinaryOperatorAggregate";
  private value: Value | undefined;
  private present = false;

  constructor(
    readonly operator: (current: Value, update: Update) => Value,
    readonly initialValueFactory?: () => Value,
  ) {
    super();
    if (initialValueFactory) {
      this.value = initialValueFactory();
      this.present = true;
    }
  }

  update(values: Update[]): boolean {
    if (values.length === 0) return false;
    let overwritten = false;
    for (const write of values) {
      const over = overwriteOf(write);
      if (over) {
        if (overwritten)
          throw new InvalidUpdateError("A key can be overwritten once per step; it got two.", {
            hint: "Let one node return Overwrite(...) for this key per step.",
          });
        overwritten = true;
        this.value = over.value as Value;
        this.present = true;
      } else if (overwritten) {
      } else if (!this.present) {
        this.value = write as unknown as Value;
        this.present = true;
      } else {
        this.value = this.operator(this.value as Value, write);
      }
    }
    return true;
  }

  get(): Value {
    if (!this.present) throw new EmptyChannelError("The BinaryOperatorAggregate channel is empty.");
    return this.value as Value;
  }

  override isAvailable(): boolean {
    return this.present;
  }

  checkpoint(): Value | undefined {
    return this.present ? this.value : undefined;
  }

  fromCheckpoint(checkpoint?: Value): this {
    const made = new BinaryOperatorAggregate(this.operator, this.initialValueFactory);
    if (checkpoint !== undefined) {
      made.value = checkpoint;
      made.present = true;
    }
    return made as this;
  }

  override equals(other: BaseChannel): boolean {
    return other instanceof BinaryOperatorAggregate && other.operator === this.operator;
  }
}

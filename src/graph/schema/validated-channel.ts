import type { StateChannel } from "../annotation.js";
import type { Channel } from "../channels/channel.js";
import { InvalidUpdateError } from "../errors.js";
import type { StandardSchemaLike } from "./standard-schema.js";

/**
 * A key whose node writes are checked against its schema (a zod object state's field, as
 * LangGraph.js checks them): a value the schema refuses is an `InvalidUpdateError` naming the key
 * and the node; an accepted one is stored as the schema returns it. A schema that validates
 * asynchronously is not checked here (graph input still is).
 */
export function validatedChannel(
  spec: StateChannel,
  key: string,
  schema: StandardSchemaLike,
): StateChannel {
  return {
    hasReducer: spec.hasReducer,
    createChannel: (name: string) => new ValidatedChannel(spec.createChannel(name), key, schema),
  } as unknown as StateChannel;
}

class ValidatedChannel implements Channel {
  constructor(
    private readonly inner: Channel,
    private readonly key: string,
    private readonly schema: StandardSchemaLike,
  ) {}

  has(): boolean {
    return this.inner.has();
  }
  get(): unknown {
    return this.inner.get();
  }
  write(value: unknown, firstInStep: boolean, writer: string): void {
    const result = this.schema["~standard"].validate(value);
    if (result && typeof (result as { then?: unknown }).then !== "function") {
      const checked = result as { value?: unknown; issues?: ReadonlyArray<{ message: string }> };
      if (checked.issues)
        throw new InvalidUpdateError(
          `Node "${writer}" wrote an invalid value to "${this.key}": ${checked.issues.map((i) => i.message).join("; ")}.`,
          {
            details: { node: writer, key: this.key },
            hint: `Return a value that matches the schema of "${this.key}".`,
          },
        );
      value = checked.value;
    }
    this.inner.write(value, firstInStep, writer);
  }
  fold(current: unknown, hasCurrent: boolean, value: unknown, writer: string): unknown {
    return this.inner.fold(current, hasCurrent, value, writer);
  }
  consume(): boolean {
    return this.inner.consume();
  }
  snapshot(): unknown {
    return this.inner.snapshot();
  }
  restore(value: unknown): void {
    this.inner.restore(value);
  }
}

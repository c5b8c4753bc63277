import { KeelError } from "../../core/index.js";
import { Annotation, type StateChannel, toChannels } from "../annotation.js";
import { DeltaChannel } from "../channels/public/index.js";
import { DeltaValue } from "./delta-value.js";
import { ReducedValue } from "./reduced-value.js";
import {
  defaultOf,
  isStandardSchema,
  jsonSchemaOf,
  type StandardSchemaLike,
} from "./standard-schema.js";
import { validatedChannel } from "./validated-channel.js";

const STATE_SCHEMA = Symbol.for("langgraph.state.state_schema");

/** A field of a `StateSchema`: a schema (last value wins), a `ReducedValue` or a `DeltaValue`. */
export type StateSchemaField =
  | StandardSchemaLike
  | ReducedValue<never, never>
  | DeltaValue<never, never>;

/** A JSON schema (draft-07) as `getJsonSchema` gives it. */
export type JsonSchema = Record<string, unknown>;

type OutputOf<S> = S extends StandardSchemaLike<infer O> ? O : unknown;
/** A folded field's value and update types. */
type Folded<F> =
  F extends ReducedValue<infer V, infer I>
    ? [V, I]
    : F extends DeltaValue<infer V, infer I>
      ? [V, I]
      : undefined;
type FieldValue<F> = Folded<F> extends [infer V, unknown] ? V : OutputOf<F>;
type FieldUpdate<F> = Folded<F> extends [unknown, infer I] ? I : OutputOf<F>;

/** The state definition (key → channel) a `StateSchema`'s fields stand for. */
export type FieldsToDefinition<F> = {
  [K in keyof F]: StateChannel<FieldValue<F[K]>, FieldUpdate<F[K]>>;
};

/**
 * A state schema written with schemas (zod 4 or any Standard Schema), LangGraph 1.x's state API.
 * A plain schema is a last-value key (its `.default()` is the starting value); a `ReducedValue`
 * folds writes with a reducer. Graph input is validated against the fields' schemas.
 *
 * @example
 * const State = new StateSchema({
 *   topic: z.string(),
 *   log: new ReducedValue(z.array(z.string()).default(() => []), { reducer: (a, b) => a.concat(b) }),
 * });
 * const graph = new StateGraph(State).addNode("a", (s) => ({ log: [s.topic] })) …
 */
export class StateSchema<F extends Record<string, unknown> = Record<string, unknown>> {
  readonly [STATE_SCHEMA] = true as const;
  /** Type only: the state definition these fields stand for. */
  declare readonly Definition: FieldsToDefinition<F>;
  /** Type only: the state nodes read. */
  declare State: { [K in keyof F]: FieldValue<F[K]> };
  /** Type only: the update nodes return. */
  declare Update: { [K in keyof F]?: FieldUpdate<F[K]> };

  /**
   * @param options.validateUpdates check nodes' writes to last-value keys against their schemas
   *   (what a zod object state does, as in LangGraph.js); graph input is always checked.
   */
  constructor(
    readonly fields: F,
    private readonly options: { validateUpdates?: boolean } = {},
  ) {
    for (const [key, field] of Object.entries(fields)) {
      if (!isFolded(field) && !isStandardSchema(field))
        throw new KeelError(
          "INVALID_ARGUMENT",
          `StateSchema field "${key}" must be a schema (e.g. z.string()), a ReducedValue or a DeltaValue.`,
          { details: { key } },
        );
    }
  }

  /** Each field as a channel spec. */
  getChannels(): Record<string, StateChannel> {
    const channels: Record<string, StateChannel> = {};
    for (const [key, field] of Object.entries(this.fields)) {
      if (DeltaValue.isInstance(field)) {
        const initial = defaultOf(field.valueSchema);
        const channel = new DeltaChannel(
          field.reducer as (state: unknown, writes: unknown[]) => unknown,
          {
            ...(field.snapshotFrequency !== undefined && {
              snapshotFrequency: field.snapshotFrequency,
            }),
            ...(initial && { initialValueFactory: initial }),
          },
        );
        channels[key] = toChannels({ [key]: channel })[key] as StateChannel;
      } else if (ReducedValue.isInstance(field)) {
        const initial = defaultOf(field.valueSchema);
        const reducer = field.reducer as (a: unknown, b: unknown) => unknown;
        channels[key] = initial
          ? Annotation({ reducer, default: initial })
          : Annotation<unknown, unknown>(reducer);
      } else {
        const initial = defaultOf(field as StandardSchemaLike);
        const channel = initial ? Annotation({ default: initial }) : Annotation();
        channels[key] = this.options.validateUpdates
          ? validatedChannel(channel, key, field as StandardSchemaLike)
          : channel;
      }
    }
    return channels;
  }

  /**
   * Checks each key of an input (or update) against its field's schema (a `ReducedValue`'s input
   * schema) and returns it with the schemas' coercions; every problem is reported at once.
   */
  async validateInput<T>(data: T): Promise<T> {
    if (data === null || typeof data !== "object" || Array.isArray(data)) return data;
    const out: Record<string, unknown> = {};
    const problems: Array<{ path: string; message: string }> = [];
    for (const [key, value] of Object.entries(data)) {
      const field = this.fields[key];
      const schema = isFolded(field)
        ? field.inputSchema
        : isStandardSchema(field)
          ? field
          : undefined;
      if (!schema) {
        out[key] = value;
        continue;
      }
      const result = await schema["~standard"].validate(value);
      if (result.issues) {
        for (const issue of result.issues)
          problems.push({
            path: `/${[key, ...(issue.path ?? []).map(pathKey)].join("/")}`,
            message: issue.message,
          });
      } else out[key] = result.value;
    }
    if (problems.length > 0)
      throw new KeelError(
        "INVALID_UPDATE",
        `The input does not match the state schema: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}.`,
        { details: { problems } },
      );
    return out as T;
  }

  /**
   * The JSON schema (draft-07) of the state, as LangGraph Studio reads it: each field's own JSON
   * form (absent for a type no JSON schema describes) with its `jsonSchemaExtra`; a field without
   * a default is required.
   *
   * @example
   * new StateSchema({ topic: z.string(), messages: MessagesValue }).getJsonSchema();
   * // { type: "object", properties: { topic: { type: "string" }, messages: { langgraph_type: "messages", … } }, required: ["topic"] }
   */
  getJsonSchema(): JsonSchema {
    return this.jsonSchema("value");
  }

  /** The JSON schema of an update or an input: every field optional, a folded one's input schema. */
  getInputJsonSchema(): JsonSchema {
    return this.jsonSchema("input");
  }

  private jsonSchema(which: "value" | "input"): JsonSchema {
    const properties: JsonSchema = {};
    const required: string[] = [];
    for (const [key, field] of Object.entries(this.fields)) {
      const folded = isFolded(field) ? field : undefined;
      const schema = folded ? (which === "value" ? folded.valueSchema : folded.inputSchema) : field;
      let json = jsonSchemaOf(schema);
      if (folded?.jsonSchemaExtra) json = { ...json, ...folded.jsonSchemaExtra };
      if (json === undefined) continue;
      properties[key] = json;
      const valueSchema = (folded ? folded.valueSchema : field) as StandardSchemaLike;
      if (which === "value" && defaultOf(valueSchema) === undefined) required.push(key);
    }
    return { type: "object", properties, ...(required.length > 0 && { required }) };
  }

  /** The keys of the schema. */
  getAllKeys(): string[] {
    return Object.keys(this.fields);
  }

  /** True for a `StateSchema`. */
  static isInstance(value: unknown): value is StateSchema {
    return typeof value === "object" && value !== null && STATE_SCHEMA in value;
  }
}

function isFolded(field: unknown): field is ReducedValue | DeltaValue {
  return ReducedValue.isInstance(field) || DeltaValue.isInstance(field);
}

function pathKey(segment: unknown): string {
  const key =
    typeof segment === "object" && segment !== null && "key" in segment
      ? (segment as { key: unknown }).key
      : segment;
  return String(key).replaceAll("~", "~0").replaceAll("/", "~1");
}

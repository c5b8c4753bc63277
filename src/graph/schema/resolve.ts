import {
  Annotation,
  AnnotationRoot,
  isStateChannel,
  type StateChannel,
  toChannels,
} from "../annotation.js";
import { GraphValueError } from "../errors.js";
import { isZodObject, stateSchemaFromZod } from "../zod/zod-state.js";
import { ReducedValue } from "./reduced-value.js";
import { isStandardSchema, type StandardSchemaLike } from "./standard-schema.js";
import { StateSchema } from "./state-schema.js";

/** What `new StateGraph(…)` was given, made uniform. */
export interface ResolvedSchemas {
  /** Every key of the state, input and output schemas, as channel specs. */
  channels: Record<string, StateChannel>;
  /** Keys `invoke` returns and the values stream shows (undefined: all). */
  outputKeys: string[] | undefined;
  /**
   * The input schema's keys when other schemas add channels to it (undefined: every channel is
   * input). A graph input's other channel keys are dropped, as LangGraph.js maps only these.
   */
  inputKeys?: string[] | undefined;
  /** Checks and coerces a graph input (StateSchema graphs only). */
  validateInput: ((input: unknown) => Promise<unknown>) | undefined;
  /** Checks a call's `configurable` against the context schema, when one was given. */
  validateContext?: ((configurable: Record<string, unknown>) => Promise<void>) | undefined;
}

const INIT_KEYS = ["state", "stateSchema", "input"] as const;

/**
 * Accepts every state form LangGraph.js does: `Annotation.Root`, `StateSchema`, a plain object of
 * annotations, `{ state | stateSchema, input?, output? }`, the legacy `{ channels }`, and options
 * `{ input, output }` as the second argument.
 */
export function resolveSchemas(state: unknown, options?: unknown): ResolvedSchemas {
  const validateContext = contextValidator(contextSchemaOf(state, options));
  const resolved = resolveStateSchemas(state, options);
  return validateContext ? { ...resolved, validateContext } : resolved;
}

/**
 * The context schema: the second argument when it is a schema (`new StateGraph(state, context)`,
 * LangGraph.js's config schema), else `context` of the options or of `{ state, context }`.
 */
export function contextSchemaOf(state: unknown, options: unknown): StandardSchemaLike | undefined {
  if (isStandardSchema(options)) return options;
  for (const holder of [options, state])
    if (isObject(holder) && isStandardSchema(holder.context)) return holder.context;
  return undefined;
}

function contextValidator(
  schema: StandardSchemaLike | undefined,
): ResolvedSchemas["validateContext"] {
  if (!schema) return undefined;
  return async (configurable) => {
    const result = await schema["~standard"].validate(configurable);
    if (!result.issues) return;
    const problems = result.issues.map(
      (issue) => `${(issue.path ?? []).map(segmentName).join(".") || "(root)"}: ${issue.message}`,
    );
    throw new GraphValueError(
      `The call's configurable does not match the graph's context schema: ${problems.join("; ")}.`,
      {
        code: "INVALID_ARGUMENT",
        details: { problems },
        hint: "Pass the context keys the schema requires in config.configurable.",
      },
    );
  };
}

/**
 * The zod object or `StateSchema` a state was given as (directly or as `{ state | stateSchema }`),
 * LangGraph.js's `builder._schemaRuntimeDefinition`; undefined for Annotation states.
 */
export function runtimeDefinitionOf(state: unknown): object | undefined {
  const isRuntime = (value: unknown): value is object =>
    isZodObject(value) || StateSchema.isInstance(value);
  if (isRuntime(state)) return state;
  if (!isObject(state)) return undefined;
  const inner = state.state ?? state.stateSchema;
  return isRuntime(inner) ? inner : undefined;
}

function segmentName(segment: unknown): string {
  return String(isObject(segment) && "key" in segment ? segment.key : segment);
}

function resolveStateSchemas(state: unknown, options?: unknown): ResolvedSchemas {
  state = fromZod(state);
  if (isObject(options))
    options = { ...options, input: fromZod(options.input), output: fromZod(options.output) };
  if (!isObject(state)) throw invalidSchema();
  let main: unknown = state;
  let input: unknown;
  let output: unknown;
  if ("channels" in state && isObject(state.channels) && !isChannelMap(state)) {
    return {
      channels: legacyChannels(state.channels),
      outputKeys: undefined,
      validateInput: undefined,
    };
  }
  if (INIT_KEYS.some((key) => key in state && isSchemaLike(fromZod(state[key])))) {
    main = fromZod(state.state ?? state.stateSchema ?? state.input);
    input = fromZod(state.input);
    output = fromZod(state.output);
  }
  if (isObject(options) && !isSchemaLike(options)) {
    input ??= options.input;
    output ??= options.output;
  }
  const channels = { ...channelsOf(main) };
  for (const extra of [input, output]) {
    if (extra === undefined) continue;
    assertSameReducers(main, extra);
    for (const [key, channel] of Object.entries(channelsOf(extra))) channels[key] ??= channel;
  }
  const validator = StateSchema.isInstance(input)
    ? input
    : StateSchema.isInstance(main)
      ? main
      : undefined;
  const inputKeys = Object.keys(channelsOf(input ?? main));
  return {
    channels,
    outputKeys: output === undefined ? undefined : Object.keys(channelsOf(output)),
    inputKeys: inputKeys.length < Object.keys(channels).length ? inputKeys : undefined,
    validateInput: validator ? (value) => validator.validateInput(value) : undefined,
  };
}

/**
 * A key an input or output schema shares with the state must fold writes the same way: two
 * different reducers for one key cannot both hold, as LangGraph.js refuses too.
 */
function assertSameReducers(main: unknown, extra: unknown): void {
  if (!StateSchema.isInstance(main) || !StateSchema.isInstance(extra)) return;
  for (const [key, field] of Object.entries(extra.fields)) {
    const own = main.fields[key];
    if (!ReducedValue.isInstance(own) || !ReducedValue.isInstance(field)) continue;
    if (own.reducer !== field.reducer)
      throw new GraphValueError(`Channel "${key}" already exists with a different type.`, {
        details: { key },
        hint: "Give the key the same reducer (the same field) in the state, input and output schemas.",
      });
  }
}

function channelsOf(schema: unknown): Record<string, StateChannel> {
  if (schema instanceof AnnotationRoot) return schema.spec;
  if (StateSchema.isInstance(schema)) return schema.getChannels();
  if (isObject(schema) && isChannelMap(schema)) return toChannels(schema as never);
  if (isObject(schema) && "spec" in schema && isObject(schema.spec))
    return toChannels(schema.spec as never);
  throw invalidSchema();
}

/** `{ channels: { key: null | { reducer | value, default } } }`, LangGraph's first state API. */
function legacyChannels(spec: Record<string, unknown>): Record<string, StateChannel> {
  const channels: Record<string, StateChannel> = {};
  for (const [key, value] of Object.entries(spec)) {
    if (value === null || value === undefined) channels[key] = Annotation();
    else if (isStateChannel(value)) channels[key] = value;
    else if (isObject(value)) channels[key] = Annotation(value as never);
    else throw invalidSchema(`channel "${key}" must be null or { reducer, default }`);
  }
  return channels;
}

/** A zod object becomes a StateSchema; anything else is kept. */
function fromZod(schema: unknown): unknown {
  return isZodObject(schema) ? stateSchemaFromZod(schema) : schema;
}

function isSchemaLike(value: unknown): boolean {
  return (
    value instanceof AnnotationRoot ||
    StateSchema.isInstance(value) ||
    (isObject(value) && isChannelMap(value))
  );
}

/** A non-empty object whose every value is a channel spec or an uncalled `Annotation`. */
function isChannelMap(value: Record<string, unknown>): boolean {
  const values = Object.values(value);
  return (
    values.length > 0 && values.every((v) => isStateChannel(v) || v === (Annotation as unknown))
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalidSchema(detail?: string): GraphValueError {
  return new GraphValueError(
    `new StateGraph() needs a state schema${detail ? `: ${detail}` : ""}.`,
    {
      code: "INVALID_ARGUMENT",
      hint: "Pass Annotation.Root({...}), a StateSchema, { stateSchema, input?, output? } or { channels }.",
    },
  );
}

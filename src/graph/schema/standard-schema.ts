/**
 * The Standard Schema interface (zod 4, valibot, arktype… implement it), which LangGraph 1.x's
 * `StateSchema` fields use. Keel reads only what it needs: `validate`, to check a key's value and
 * to find its default (`z.string().default("x")` validates `undefined` to `"x"`).
 */
export interface StandardSchemaLike<Output = unknown> {
  readonly "~standard": {
    validate(value: unknown): StandardResult<Output> | Promise<StandardResult<Output>>;
  };
}

/** What `validate` returns: a value, or the issues found. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<unknown> }> };

/** True for any Standard Schema (an object whose `~standard` has `validate`). */
export function isStandardSchema(value: unknown): value is StandardSchemaLike {
  if (typeof value !== "object" && typeof value !== "function") return false;
  if (value === null) return false;
  const standard = (value as { "~standard"?: unknown })["~standard"];
  return (
    typeof standard === "object" &&
    standard !== null &&
    typeof (standard as { validate?: unknown }).validate === "function"
  );
}

/**
 * The schema's default as a factory, when it has one: validating `undefined` succeeds with a
 * value. Asked once per key when the graph is built; each call validates again, so a default
 * made by a function (`.default(() => [])`) is fresh per run.
 */
export function defaultOf(schema: StandardSchemaLike): (() => unknown) | undefined {
  const probe = schema["~standard"].validate(undefined);
  if (isPromise(probe) || probe.issues !== undefined || probe.value === undefined) return undefined;
  return () => {
    const result = schema["~standard"].validate(undefined);
    return isPromise(result) || result.issues !== undefined ? undefined : result.value;
  };
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown })?.then === "function";
}

/**
 * A schema that accepts any value as it is, with an optional default: for keys whose values a
 * schema cannot describe (message instances), as `z.custom()` would, without loading a schema
 * library.
 */
export function anyValueSchema<Output>(makeDefault?: () => Output): StandardSchemaLike<Output> {
  return {
    "~standard": {
      validate: (value) => ({
        value: (value === undefined && makeDefault ? makeDefault() : value) as Output,
      }),
    },
  };
}

/**
 * The JSON schema (draft-07) of a Standard Schema that can describe itself (Standard JSON Schema:
 * zod 4 and others), `$schema` included as LangGraph.js leaves it; undefined for one that cannot
 * (a custom type).
 */
export function jsonSchemaOf(schema: unknown): Record<string, unknown> | undefined {
  if (!isStandardSchema(schema)) return undefined;
  const standard = schema["~standard"] as {
    jsonSchema?: { input?: (options: { target: string }) => Record<string, unknown> };
  };
  if (typeof standard.jsonSchema?.input !== "function") return undefined;
  try {
    return standard.jsonSchema.input({ target: "draft-07" });
  } catch {
    // A schema that has no JSON form (zod's `z.custom()`) throws; LangGraph.js leaves it out too.
    return undefined;
  }
}

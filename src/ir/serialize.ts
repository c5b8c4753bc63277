import type { z } from "zod";
import { canonicalJson, sha256Hex } from "../core/index.js";
import { toWire } from "./dump.js";
import { IrValidationError } from "./errors.js";
import { MODELS, type ModelName } from "./models/index.js";
import { PARSE_PARAMS, type Problem, problemsFromIssues } from "./problems.js";

/** The input type of model `M` (defaulted fields optional). */
export type ModelInput<M extends ModelName> = z.input<(typeof MODELS)[M]>;
/** The parsed type of model `M` (defaults filled in). */
export type ModelValue<M extends ModelName> = z.output<(typeof MODELS)[M]>;

function wireOf(value: unknown, model: ModelName): unknown {
  const schema = MODELS[model];
  const parsed = schema.safeParse(value, PARSE_PARAMS);
  if (!parsed.success) {
    throw new IrValidationError(model, problemsFromIssues(parsed.error.issues, value));
  }
  return toWire(schema, parsed.data);
}

/**
 * Serialises an IR value compactly, in the model's declaration order, leaving out fields equal to
 * their defaults (every action keeps its `kind`); non-ASCII text is written as is (UTF-8).
 * The value is validated first: an invalid one throws `IrValidationError` (`IR_INVALID`).
 *
 * @example
 * dumps({ ir_version: "1.0.0", id: "graph:demo", nodes: [] })
 * // '{"ir_version":"1.0.0","id":"graph:demo","nodes":[]}'
 */
export function dumps<M extends ModelName = "IRDocument">(value: ModelInput<M>, model?: M): string {
  return JSON.stringify(wireOf(value, model ?? "IRDocument"));
}

/**
 * Like {@link dumps} but with keys sorted (core `canonicalJson`): the form hashes are computed
 * over, so it is stable under any key order of the input.
 */
export function dumpsCanonical<M extends ModelName = "IRDocument">(
  value: ModelInput<M>,
  model?: M,
): string {
  const wire = wireOf(value, model ?? "IRDocument");
  // Fast path: a copy with every object's keys inserted in sorted order, written by the native
  // JSON.stringify (several times faster than core's recursive writer on a large document).
  // JavaScript lists array-index-like keys ("2") first whatever their insertion order, so data
  // holding such a key takes core canonicalJson, which sorts every key as a string.
  const sorted = sortedCopy(wire);
  return sorted === INDEX_KEY ? canonicalJson(wire) : JSON.stringify(sorted);
}

const INDEX_KEY: unique symbol = Symbol("index-like key");
const ARRAY_INDEX = /^(?:0|[1-9]\d{0,9})$/;

/** Wire data with sorted keys, or INDEX_KEY when an object has an array-index-like key. */
function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = sortedCopy(value[i]);
      if (item === INDEX_KEY) return INDEX_KEY;
      out[i] = item;
    }
    return out;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    if (ARRAY_INDEX.test(key)) return INDEX_KEY;
    const item = record[key];
    if (item === undefined) continue;
    const copy = sortedCopy(item);
    if (copy === INDEX_KEY) return INDEX_KEY;
    out[key] = copy;
  }
  return out;
}

/**
 * The graph hash of a document: hex sha256 over the UTF-8 bytes of `dumpsCanonical(doc)`.
 * Key order and defaulted fields do not change it; any other edit does.
 */
export function graphHash(doc: ModelInput<"IRDocument">): string {
  return sha256Hex(dumpsCanonical(doc));
}

/**
 * Parses JSON text into a model (default `IRDocument`), filling defaults. This is the
 * structural check only (types, required fields, unknown keys); `validate` adds slugs,
 * duplicates, the version gate and references. Throws `IrValidationError` with every problem.
 *
 * @example
 * const doc = loads('{"ir_version":"1.0.0","id":"g","nodes":[]}');
 * doc.rules // []
 */
export function loads<M extends ModelName = "IRDocument">(text: string, model?: M): ModelValue<M> {
  const name = model ?? "IRDocument";
  const data = parseJson(text);
  if (!data.ok) throw new IrValidationError(name, [data.problem]);
  const parsed = MODELS[name].safeParse(data.value, PARSE_PARAMS);
  if (!parsed.success) {
    throw new IrValidationError(name, problemsFromIssues(parsed.error.issues, data.value));
  }
  return parsed.data as ModelValue<M>;
}

/** The outcome of parsing JSON text: the value, or the one problem saying where it broke. */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false; problem: Problem };

/** Parses JSON text without throwing; a syntax error becomes a `json_invalid` problem at `/`. */
export function parseJson(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(reason);
    const offset = position ? Number(position[1]) : undefined;
    const where = offset === undefined ? "" : ` (${lineAndColumn(text, offset)})`;
    return {
      ok: false,
      problem: {
        code: "json_invalid",
        path: "/",
        message: `IR JSON parse error${where}: ${reason}`,
        expected: "a JSON document",
        actual: offset === undefined ? excerpt(text, 0) : excerpt(text, offset),
        hint: "Fix the JSON syntax at the reported position (a linter or `jq .` shows it).",
      },
    };
  }
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return `line ${line}, column ${column}`;
}

function excerpt(text: string, offset: number): string {
  if (text.trim() === "") return "empty input";
  const start = Math.max(0, offset - 20);
  return JSON.stringify(text.slice(start, offset + 20));
}

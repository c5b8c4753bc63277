import type { z } from "zod";
import { sha256Hex } from "../core/index.js";
import { SLOW_PATH, sortedWire } from "./canonical-wire.js";
import { type SchemaNode, toWire } from "./dump.js";
import { IrValidationError } from "./errors.js";
import { MODELS, type ModelName } from "./models/index.js";
import { PARSE_PARAMS, type Problem, problemsFromIssues } from "./problems.js";
import { differsFromJavaScript, pythonJson } from "./python-json.js";

/** The input type of model `M` (defaulted fields optional). */
export type ModelInput<M extends ModelName> = z.input<(typeof MODELS)[M]>;
/** The parsed type of model `M` (defaults filled in). */
export type ModelValue<M extends ModelName> = z.output<(typeof MODELS)[M]>;

/** `value` parsed by `model`'s schema (defaults filled); throws IrValidationError. */
function parseModel(value: unknown, model: ModelName): unknown {
  const parsed = MODELS[model].safeParse(value, PARSE_PARAMS);
  if (!parsed.success) {
    throw new IrValidationError(model, problemsFromIssues(parsed.error.issues, value));
  }
  return parsed.data;
}

function wireOf(value: unknown, model: ModelName): unknown {
  return toWire(MODELS[model], parseModel(value, model));
}

/**
 * Serialises an IR value compactly, in the model's declaration order, leaving out fields equal to
 * their defaults (every action keeps its `kind`); non-ASCII text is written as is (UTF-8), and
 * numbers as Python's json writes them (`1e-05`, `1e+16`), so text the original system wrote
 * comes back byte for byte (except integral floats: `1.0` is written `1`, docs/ir.md).
 * The value is validated first: an invalid one throws `IrValidationError` (`IR_INVALID`).
 *
 * @example
 * dumps({ ir_version: "1.0.0", id: "graph:demo", nodes: [] })
 * // '{"ir_version":"1.0.0","id":"graph:demo","nodes":[]}'
 */
export function dumps<M extends ModelName = "IRDocument">(value: ModelInput<M>, model?: M): string {
  const wire = wireOf(value, model ?? "IRDocument");
  // Native JSON.stringify unless a number would come out differently from Python's writer.
  return hasPythonOnlyNumber(wire)
    ? pythonJson(wire, { sortKeys: false, ensureAscii: false })
    : JSON.stringify(wire);
}

/**
 * Like {@link dumps} but with keys sorted as Python sorts them (by code point): the seed's
 * `dumps_canonical`, the form hashes are computed over, stable under any key order of the input.
 */
export function dumpsCanonical<M extends ModelName = "IRDocument">(
  value: ModelInput<M>,
  model?: M,
): string {
  const name = model ?? "IRDocument";
  return canonicalText(name, parseModel(value, name));
}

/** The canonical text of `data`, already parsed by `name`'s schema. */
function canonicalText(name: ModelName, data: unknown): string {
  const schema = MODELS[name];
  // Fast path: wire data with every object's keys inserted in sorted order (one walk of the
  // schema), written by the native JSON.stringify (several times faster than a writer of our
  // own on a large document). Data the native writer would get wrong takes the Python-exact
  // writer: an array-index-like key ("2", which JavaScript lists first whatever the insertion
  // order), a key where UTF-16 order and code-point order may differ, or a number Python writes
  // differently.
  const sorted = sortedWire(schema as unknown as SchemaNode, data);
  return sorted === SLOW_PATH
    ? pythonJson(toWire(schema, data), { sortKeys: true, ensureAscii: false })
    : JSON.stringify(sorted);
}

/** True when some number in `value` is written differently by Python's json. */
function hasPythonOnlyNumber(value: unknown): boolean {
  if (typeof value === "number") return differsFromJavaScript(value);
  if (value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some(hasPythonOnlyNumber);
  for (const key in value) {
    if (hasPythonOnlyNumber((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/**
 * The graph hash of a document (the seed's `graph_hash`, what a run records and `migrate`
 * entries name): hex sha256 over the UTF-8 bytes of `dumpsCanonical(doc)` with the `migrate`
 * list left out. `migrate` names graph hashes, so it cannot be part of the hash it migrates to;
 * for a document without migrate entries this is exactly sha256 of `dumpsCanonical(doc)`. Key
 * order and defaulted fields do not change it; any other edit does.
 */
export function graphHash(doc: ModelInput<"IRDocument">): string {
  const parsed = parseModel({ ...doc, migrate: [] }, "IRDocument") as ModelValue<"IRDocument">;
  return graphHashOfValidated(parsed);
}

/**
 * {@link graphHash} of a document validation has just produced, without parsing it again: only
 * for a document nothing can have changed since (compileDocument hashes the one validation
 * handed it before any other code sees it). Same text, same hash.
 */
export function graphHashOfValidated(doc: ModelValue<"IRDocument">): string {
  return sha256Hex(canonicalText("IRDocument", { ...doc, migrate: [] }));
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
  const data = parseJson(text, "");
  if (!data.ok) throw new IrValidationError(name, [data.problem]);
  const parsed = MODELS[name].safeParse(data.value, PARSE_PARAMS);
  if (!parsed.success) {
    throw new IrValidationError(name, problemsFromIssues(parsed.error.issues, data.value));
  }
  return parsed.data as ModelValue<M>;
}

/** The outcome of parsing JSON text: the value, or the one problem saying where it broke. */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false; problem: Problem };

/**
 * Parses JSON text without throwing; a syntax error becomes a `json_invalid` problem at `path`:
 * `/` for `validate` (the seed's choice), `""` (the whole document) for the structural stage.
 */
export function parseJson(text: string, path = "/"): JsonParseResult {
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
        path,
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

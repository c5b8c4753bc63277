import { createHash } from "node:crypto";
import { KeelError } from "../core/index.js";
import type { IRDocument } from "./models/index.js";
import { NODE_SPEC_SIGNATURE } from "./node-signature.js";

/**
 * Stargraph's `graph_hash` (IR 1.1.0): a structural hash, beside the seed's graph hash (sha256 of
 * the canonical text, {@link graphHash}), which stays what Keel's runs record. Two documents
 * that differ only in what a run cannot see — rule conditions, prompts, node config, the `lm`
 * block — share it. It is sha256 over the RFC 8785 (JCS) text of:
 *
 * - `topology`: the node ids, sorted, and the edges `[rule id, target, "goto"|"parallel"|"retry"]`
 *   of every rule's actions, sorted;
 * - `node_signatures`: each node id → the JSON Schema of the node model (every node has the same
 *   one: the IR's node model, not the node's kind);
 * - `state_schema`: the JSON Schema Pydantic writes for the state model Stargraph compiles from
 *   `state_schema` (field titles as Pydantic makes them, every field required);
 * - `rule_pack_versions`: `[]` (Stargraph mounts no pack triples at graph construction);
 * - `pack_requires`, only when a mounted pack declares `requires`: `[pack id, facts version,
 *   api version]` sorted by pack id.
 *
 * Stargraph compiles `str`, `int`, `bool` and `bytes` fields; Keel's other state types (`float`,
 * `list`, `dict`, `any` and their JSON Schema aliases) hash as Pydantic writes those Python types.
 * A document with `state_class` names a Python class there: its JSON Schema (what Pydantic's
 * `model_json_schema(mode="serialization")` writes, floats as Stargraph coerces them) must be given
 * as `options.stateClassSchema`, else `IR_STATE_TYPE` is thrown.
 *
 * @example
 * structuralHash(loads(text)) // "3f0c…" — equal to Stargraph's Graph(doc).graph_hash
 */
export function structuralHash(doc: IRDocument, options: StructuralHashOptions = {}): string {
  // The payload's text is written straight into the hash, keys in JCS order, so that the node
  // model's schema (one copy per node: megabytes for a large graph) is serialised once, never
  // built as one string.
  const hash = createHash("sha256");
  hash.update('{"node_signatures":{');
  const ids = doc.nodes.map((node) => node.id).sort();
  const signature = nodeSignatureBytes();
  for (let i = 0; i < ids.length; i++) {
    hash.update(`${i === 0 ? "" : ","}${JSON.stringify(ids[i])}:`);
    hash.update(signature);
  }
  hash.update("}");
  const requires = doc.governance
    .filter((pack) => pack.requires !== null)
    .map((pack) => [
      pack.id,
      pack.requires?.stargraph_facts_version ?? null,
      pack.requires?.api_version ?? null,
    ])
    .sort((a, b) => compareText(String(a[0]), String(b[0])));
  if (requires.length > 0) hash.update(`,"pack_requires":${jcs(requires)}`);
  hash.update(',"rule_pack_versions":[]');
  hash.update(`,"state_schema":${jcs(options.stateClassSchema ?? stateModelSchema(doc))}`);
  hash.update(`,"topology":${jcs(topology(doc))}}`);
  return hash.digest("hex");
}

let signatureBytes: Buffer | undefined;
/** The node model's JCS text as UTF-8, encoded once rather than once per node. */
function nodeSignatureBytes(): Buffer {
  signatureBytes ??= Buffer.from(jcs(NODE_SPEC_SIGNATURE), "utf8");
  return signatureBytes;
}

/** Options of {@link structuralHash}. */
export interface StructuralHashOptions {
  /** The JSON Schema of the document's `state_class`, as Stargraph's Python class writes it. */
  stateClassSchema?: Record<string, unknown>;
}

function topology(doc: IRDocument): { nodes: string[]; edges: [string, string, string][] } {
  const edges: [string, string, string][] = [];
  for (const rule of doc.rules) {
    for (const action of rule.then) {
      if (action.kind === "goto") edges.push([rule.id, action.target, "goto"]);
      else if (action.kind === "retry") edges.push([rule.id, action.target, "retry"]);
      else if (action.kind === "parallel") {
        for (const target of action.targets) edges.push([rule.id, target, "parallel"]);
      }
    }
  }
  edges.sort(
    (a, b) => compareText(a[0], b[0]) || compareText(a[1], b[1]) || compareText(a[2], b[2]),
  );
  return { nodes: doc.nodes.map((node) => node.id).sort(compareText), edges };
}

/** The JSON Schema Pydantic writes for a field of each state type (titles added per field). */
const FIELD_SCHEMAS: Record<string, Record<string, unknown>> = {
  str: { type: "string" },
  int: { type: "integer" },
  bool: { type: "boolean" },
  bytes: { format: "binary", type: "string" },
  float: { type: "number" },
  list: { items: {}, type: "array" },
  dict: { additionalProperties: true, type: "object" },
  any: {},
};
const TYPE_ALIASES: Record<string, string> = {
  string: "str",
  integer: "int",
  number: "float",
  boolean: "bool",
  array: "list",
  object: "dict",
};

/**
 * The JSON Schema Pydantic writes for the state model Stargraph compiles from a document's
 * `state_schema` (what {@link structuralHash} hashes as `state_schema`). A document naming a
 * `state_class` throws `IR_STATE_TYPE`: that class's schema comes from Python.
 *
 * @example
 * stateModelSchema(loads('{"ir_version":"1.1.0","id":"g","nodes":[],"state_schema":{"n":"int"}}'))
 * // { properties: { n: { title: "N", type: "integer" } }, required: ["n"], title: "StargraphState_g", type: "object" }
 */
export function stateModelSchema(doc: IRDocument): Record<string, unknown> {
  if (doc.state_class !== null) {
    throw new KeelError(
      "IR_STATE_TYPE",
      `The document's state is the class "${doc.state_class}", whose schema Keel cannot read, so it has no structural hash.`,
      {
        details: { state_class: doc.state_class },
        hint: "Pass the class's JSON Schema as stateClassSchema, declare the fields in state_schema, or use graphHash (the seed's hash).",
      },
    );
  }
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [field, written] of Object.entries(doc.state_schema)) {
    // Keel's optional field ("str?") is Pydantic's `Optional[str] = None`.
    const optional = written.endsWith("?");
    const type = optional ? written.slice(0, -1) : written;
    const schema = FIELD_SCHEMAS[TYPE_ALIASES[type] ?? type];
    if (schema === undefined) {
      throw new KeelError(
        "IR_STATE_TYPE",
        `State field "${field}" has the unknown type "${type}".`,
        {
          details: { field, type },
          hint: `Use one of ${Object.keys(FIELD_SCHEMAS).join(", ")}.`,
        },
      );
    }
    if (optional) {
      properties[field] = {
        anyOf: [schema, { type: "null" }],
        default: null,
        title: pydanticTitle(field),
      };
      continue;
    }
    properties[field] = { ...schema, title: pydanticTitle(field) };
    required.push(field);
  }
  const signature: Record<string, unknown> = { properties };
  if (required.length > 0) signature.required = required;
  signature.title = `StargraphState_${safeId(doc.id)}`;
  signature.type = "object";
  return signature;
}

/** Pydantic's default field title: Python's `str.title()`, then `_` → space. */
function pydanticTitle(field: string): string {
  let out = "";
  let previousCased = false;
  for (const char of field) {
    const cased = char.toLowerCase() !== char.toUpperCase();
    out += cased ? (previousCased ? char.toLowerCase() : char.toUpperCase()) : char;
    previousCased = cased;
  }
  return out.replaceAll("_", " ");
}

/** Stargraph's state model name part: every character not a letter or digit becomes `_`. */
function safeId(id: string): string {
  let out = "";
  for (const char of id) out += /[\p{L}\p{N}]/u.test(char) ? char : "_";
  return out || "graph";
}

/**
 * Orders text as Python orders `str` (by code point). UTF-16 order is the same except where a
 * surrogate meets a unit at U+E000 or above, so only the first differing unit needs fixing up.
 */
function compareText(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const left = a.charCodeAt(i);
    const right = b.charCodeAt(i);
    if (left !== right) return codePointRank(left) - codePointRank(right);
  }
  return a.length - b.length;
}

/** Lifts surrogates above U+E000–U+FFFF, as the code points they begin are. */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

const SAFE_INTEGER = 2 ** 53 - 1;

/**
 * RFC 8785 text of JSON data holding strings, integers, booleans, null, arrays and objects:
 * object keys sorted by UTF-16 code units (JavaScript's default sort), strings and integers as
 * JSON.stringify writes them. Integers beyond ±(2^53 − 1) are written as the text
 * `__stargraph_bigint__:<digits>`, as Stargraph does; the payload holds no floats.
 */
function jcs(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && Number.isInteger(value) && Math.abs(value) > SAFE_INTEGER) {
      return JSON.stringify(`__stargraph_bigint__:${BigInt(value)}`);
    }
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(jcs).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${jcs(record[key])}`).join(",")}}`;
}

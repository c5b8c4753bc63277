import { cypherProblems } from "./cypher-lint.js";
import { slugProblem } from "./ids.js";
import { type IRDocument, IRDocumentSchema, MODELS, type ModelName } from "./models/index.js";
import { findNestedActions } from "./nested-actions.js";
import {
  hintFor,
  PARSE_PARAMS,
  type Problem,
  problemsFromIssues,
  renderActual,
  tooDeepProblem,
} from "./problems.js";
import { checkReferences, type ReferenceOptions } from "./references.js";
import { checkRuleConditions } from "./rule-conditions.js";
import { parseJson } from "./serialize.js";
import { versionProblems } from "./version.js";

/** Options of {@link validate}. */
export type ValidateOptions = ReferenceOptions;

/** The outcome of {@link validateDocument}: the parsed document when there is no problem. */
export type ValidationResult =
  | { ok: true; document: IRDocument; problems: [] }
  | { ok: false; document: undefined; problems: Problem[] };

/**
 * Validates an IR document given as JSON text or as an already-decoded value, returning every
 * problem (empty when valid). It never throws. Stages run in the seed's order, each only when the
 * previous one found nothing:
 *
 * 1. JSON parse: one `json_invalid` problem at `/`.
 * 2. Structure: types, required fields, unknown keys, action kinds, nested actions (FR-11).
 * 3. Ids: node, rule and pack ids are slugs; ids are unique within their list (these
 *    short-circuit the version check).
 * 4. Version: `version_invalid` / `version_mismatch` at `/ir_version`.
 * 5. References: goto, retry, parallel and `on_timeout` targets are declared nodes; strategies
 *    are known; node kinds are registered when `options.nodeKinds` is given; every rule's `when`
 *    parses as CLIPS conditions (`rule_invalid` at `/rules/<i>/when`; at IR 1.1.0 a warning of
 *    {@link documentWarnings}, refused when the document is compiled); a node's Cypher queries
 *    (`cypher`, `*_cypher` config keys) keep to the portable subset (`cypher_unportable`).
 *
 * @example
 * validate('{"ir_version":"2.0.0","id":"g","nodes":[]}')[0]?.code // "version_mismatch"
 */
export function validate(input: unknown, options: ValidateOptions = {}): Problem[] {
  return validateDocument(input, options).problems;
}

/** Like {@link validate}, and also returns the parsed document when it is valid. */
export function validateDocument(input: unknown, options: ValidateOptions = {}): ValidationResult {
  try {
    return runStages(input, options);
  } catch (error) {
    // validate never throws: an unexpected failure is reported as a problem, not raised.
    const message = error instanceof Error ? error.message : String(error);
    return fail([
      {
        code: "internal_error",
        path: "/",
        message: `Validation failed unexpectedly: ${message}`,
        expected: "a JSON document",
        actual: renderActual(typeof input),
        hint: "Report this as a Keel bug, with the document.",
      },
    ]);
  }
}

function runStages(input: unknown, options: ValidateOptions): ValidationResult {
  let data = input;
  if (typeof input === "string") {
    const parsed = parseJson(input);
    if (!parsed.ok) return fail([parsed.problem]);
    data = parsed.value;
  }
  const deep = tooDeepProblem(data, "The document");
  if (deep) return fail([deep]);

  const structure = checkStructure(data);
  if (structure.problems.length > 0 || structure.document === undefined) {
    return fail(structure.problems);
  }
  const doc = structure.document;

  const ids = checkIds(doc);
  if (ids.length > 0) return fail(ids);

  const version = versionProblems(doc);
  if (version.length > 0) return fail(version);

  const references = [
    ...checkReferences(doc, options),
    ...checkRuleConditions(doc),
    ...cypherProblems(doc),
  ];
  if (references.length > 0) return fail(references);

  return { ok: true, document: doc, problems: [] };
}

function fail(problems: Problem[]): ValidationResult {
  return { ok: false, document: undefined, problems };
}

function checkStructure(data: unknown): { document?: IRDocument; problems: Problem[] } {
  const nested = findNestedActions(data);
  const parsed = IRDocumentSchema.safeParse(data, PARSE_PARAMS);
  if (parsed.success && nested.length === 0) return { document: parsed.data, problems: [] };
  const schemaProblems = parsed.success ? [] : problemsFromIssues(parsed.error.issues, data);
  // A nested action also shows up as an unknown key or a wrong type at the same place: keep
  // the one problem that says what is wrong.
  const covered = (path: string) =>
    nested.some((n) => path === n.path || path.startsWith(`${n.path}/`));
  return { problems: [...nested, ...schemaProblems.filter((p) => !covered(p.path))] };
}

const ID_LISTS = [
  { list: "nodes", key: "id", kind: "node", slug: true },
  { list: "rules", key: "id", kind: "rule", slug: true },
  { list: "governance", key: "id", kind: "pack", slug: true },
  { list: "tools", key: "id", kind: "tool", slug: false },
  { list: "skills", key: "id", kind: "skill", slug: false },
  { list: "stores", key: "name", kind: "store", slug: false },
] as const;

/** Stage 3: slugs (FR-33) for node, rule and pack ids; unique ids within each list. */
function checkIds(doc: IRDocument): Problem[] {
  const problems: Problem[] = [];
  for (const spec of ID_LISTS) {
    const items = doc[spec.list] as readonly Record<string, unknown>[];
    const firstIndex = new Map<string, number>();
    items.forEach((item, index) => {
      const id = String(item[spec.key]);
      const reason = spec.slug ? slugProblem(id) : undefined;
      if (reason !== undefined) {
        problems.push({
          code: "invalid_id",
          path: `/${spec.list}/${index}/${spec.key}`,
          message: `${spec.kind} id ${JSON.stringify(id)} is not a slug: ${reason}.`,
          expected: "^[a-z0-9][a-z0-9_\\-.]{0,127}$",
          actual: renderActual(id),
          hint: hintFor("invalid_id"),
        });
      }
      const first = firstIndex.get(id);
      if (first === undefined) {
        firstIndex.set(id, index);
        return;
      }
      problems.push({
        code: "duplicate_id",
        path: `/${spec.list}/${index}/${spec.key}`,
        message: `${spec.kind} ${spec.key} ${JSON.stringify(id)} is already used at /${spec.list}/${first}.`,
        expected: `${spec.key} unique within ${spec.list}`,
        actual: renderActual(id),
        hint: hintFor("duplicate_id"),
      });
    });
  }
  return problems;
}

/**
 * Validates any single IR model (`ToolSpec`, `PluginManifest`, …) given as JSON text or a value:
 * the parse and structure stages, every problem returned, never throws. Use {@link validate} for
 * whole documents, which adds the id, version and reference stages.
 *
 * @example
 * validateModel("SlotDef", { name: "sev" })[0]?.code // "missing"
 */
export function validateModel(model: ModelName, input: unknown): Problem[] {
  let data = input;
  if (typeof input === "string") {
    const parsed = parseJson(input, "");
    if (!parsed.ok) return [parsed.problem];
    data = parsed.value;
  }
  if (model === "IRDocument") return checkStructure(data).problems;
  const parsed = MODELS[model].safeParse(data, PARSE_PARAMS);
  return parsed.success ? [] : problemsFromIssues(parsed.error.issues, data);
}

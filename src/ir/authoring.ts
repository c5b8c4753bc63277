import { IrValidationError } from "./errors.js";
import type { IRDocumentInput } from "./models/index.js";
import { SGLangServerSchema } from "./models/index.js";
import { PARSE_PARAMS, type Problem, problemsFromIssues, renderActual } from "./problems.js";

/**
 * Stargraph's authoring format: a short YAML front door to the IR.
 *
 * ```yaml
 * id: review
 * state: { draft: str, verdict: { type: str, route: true } }
 * nodes: { write: { kind: echo }, check: { kind: echo } }
 * routes: { write: check, check: { pass: done, fail: write } }
 * ```
 *
 * `state` maps fields to types (or `{type, route, default}`), `nodes` names nodes with their
 * `kind` and config, `routes` sends each node to the next (`done` halts) or, by the value of the
 * `verdict` field, to one of several. {@link compileAuthoring} lowers it to an IR document whose
 * rules use the `when` mapping sugar. Stargraph synthesises a Python state class; Keel writes the
 * fields into `state_schema` instead (a field's `route` and `default` have no IR equivalent:
 * every field is mirrored to the rules, and a run starts from its input).
 */

/** The route target that halts the run. */
export const AUTHORING_DONE = "done";

const KEYS = new Set(["id", "state", "nodes", "routes", "lm"]);
const NAME = /^[a-z0-9][a-z0-9_.-]*$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TYPES = new Set(["str", "int", "float", "bool", "list", "dict"]);

/**
 * True for an authoring-format mapping: it has `nodes` and no `ir_version`.
 *
 * @example
 * isAuthoringFormat({ nodes: { a: { kind: "echo" } } }) // true
 */
export function isAuthoringFormat(value: unknown): value is Record<string, unknown> {
  return isMapping(value) && !("ir_version" in value) && "nodes" in value;
}

/**
 * Lowers an authoring-format mapping to an IR document (see the module doc). Throws
 * `IrValidationError` (`IR_INVALID`) with every problem found, each at its JSON Pointer.
 *
 * @example
 * compileAuthoring({ id: "hi", nodes: { a: { kind: "echo" } }, routes: { a: "done" } }).rules
 * // [{ id: "r-a", when: { node: "a" }, then: [{ kind: "halt", reason: "a complete" }] }]
 */
export function compileAuthoring(value: unknown, defaultId = "authored"): IRDocumentInput {
  const problems: Problem[] = [];
  const report = (path: string, message: string, actual: unknown, hint: string) =>
    problems.push({
      code: "authoring_invalid",
      path,
      message,
      expected: "the authoring format (docs/ir.md)",
      actual: renderActual(actual),
      hint,
    });
  if (!isMapping(value)) {
    report("", "An authoring document is a mapping.", value, "Write id, state, nodes and routes.");
    throw new IrValidationError("authoring document", problems);
  }
  for (const key of Object.keys(value)) {
    if (!KEYS.has(key)) {
      report(
        `/${key}`,
        `Unknown top-level key "${key}".`,
        key,
        "Use id, state, nodes, routes and lm; a full IR document declares ir_version.",
      );
    }
  }
  const id = value.id ?? defaultId;
  if (typeof id !== "string" || !NAME.test(id)) {
    report(
      "/id",
      `The id must match ${NAME.source}.`,
      id,
      "Use lowercase letters, digits, `_`, `-` and `.`.",
    );
  }

  const state_schema: Record<string, string> = {};
  const routed = new Set<string>();
  const state = value.state ?? {};
  if (!isMapping(state))
    report(
      "/state",
      "`state` must map fields to types.",
      state,
      "Write e.g. state: { draft: str }.",
    );
  else {
    for (const [field, raw] of Object.entries(state)) {
      const path = `/state/${field}`;
      if (!IDENTIFIER.test(field)) {
        report(
          path,
          `State field "${field}" is not an identifier.`,
          field,
          "Use letters, digits and `_`.",
        );
        continue;
      }
      const spec = typeof raw === "string" ? { type: raw } : raw;
      if (!isMapping(spec)) {
        report(
          path,
          `State field "${field}" must be a type name or {type, route, default}.`,
          raw,
          "Write e.g. verdict: { type: str, route: true }.",
        );
        continue;
      }
      const extra = Object.keys(spec).filter((key) => !["type", "route", "default"].includes(key));
      if (extra.length > 0)
        report(
          path,
          `State field "${field}" has unknown keys ${extra.join(", ")}.`,
          extra,
          "Use type, route and default.",
        );
      const type = String(spec.type ?? "str");
      if (!TYPES.has(type))
        report(
          `${path}/type`,
          `State field "${field}" has the unsupported type "${type}".`,
          type,
          `Use one of ${[...TYPES].join(", ")}.`,
        );
      state_schema[field] = type;
      if (spec.route === true) routed.add(field);
    }
  }

  const nodes: { id: string; kind: string; spec?: string; config: Record<string, unknown> }[] = [];
  const nodesRaw = value.nodes;
  if (!isMapping(nodesRaw) || Object.keys(nodesRaw).length === 0) {
    report(
      "/nodes",
      "`nodes` must be a non-empty mapping of name to {kind, …}.",
      nodesRaw,
      "Write e.g. nodes: { write: { kind: echo } }.",
    );
  } else {
    for (const [name, raw] of Object.entries(nodesRaw)) {
      const path = `/nodes/${name}`;
      if (!NAME.test(name))
        report(
          path,
          `Node name "${name}" must match ${NAME.source}.`,
          name,
          "Use lowercase letters, digits, `_`, `-` and `.`.",
        );
      if (!isMapping(raw) || typeof raw.kind !== "string" || raw.kind === "") {
        report(
          path,
          `Node "${name}" needs a mapping with a \`kind\`.`,
          raw,
          "Write e.g. { kind: echo }.",
        );
        continue;
      }
      const { kind, spec, ...config } = raw;
      if (spec !== undefined && kind !== "subgraph")
        report(
          `${path}/spec`,
          `Node "${name}": \`spec\` is only for kind subgraph.`,
          spec,
          "Remove spec, or make the node a subgraph.",
        );
      if (Array.isArray(config.tools))
        config.tools = config.tools.map((tool) => withVersion(String(tool)));
      if (typeof config.tool === "string") config.tool = withVersion(config.tool);
      nodes.push({ id: name, kind, ...(spec !== undefined ? { spec: String(spec) } : {}), config });
    }
  }

  const rules: Rules = [];
  const known = new Set(nodes.map((node) => node.id));
  const then = (source: string, target: string, path: string) => {
    if (target === AUTHORING_DONE) return [{ kind: "halt" as const, reason: `${source} complete` }];
    if (!known.has(target))
      report(
        path,
        `The route from "${source}" goes to "${target}", which is not a node.`,
        target,
        `Use one of ${[...known].join(", ")}, or ${AUTHORING_DONE}.`,
      );
    return [{ kind: "goto" as const, target }];
  };
  const routes = value.routes ?? {};
  if (!isMapping(routes))
    report(
      "/routes",
      "`routes` must map nodes to targets.",
      routes,
      "Write e.g. routes: { write: check }.",
    );
  else {
    for (const [source, target] of Object.entries(routes)) {
      const path = `/routes/${source}`;
      if (!known.has(source))
        report(
          path,
          `Route source "${source}" is not a node.`,
          source,
          "Route from a declared node.",
        );
      if (typeof target === "string") {
        rules.push(rule(`r-${source}`, { node: source }, then(source, target, path)));
      } else if (isMapping(target)) {
        if (!routed.has("verdict"))
          report(
            path,
            `The route from "${source}" branches on verdict values, but no routed verdict field is declared.`,
            target,
            "Add verdict: { type: str, route: true } to state.",
          );
        for (const [verdict, to] of Object.entries(target)) {
          rules.push(
            rule(
              `r-${source}-${verdict}`,
              { node: source, verdict },
              then(source, String(to), `${path}/${verdict}`),
            ),
          );
        }
      } else {
        report(
          path,
          `The route from "${source}" must be a node name or {verdict: node}.`,
          target,
          "Write e.g. check: { pass: done, fail: write }.",
        );
      }
    }
  }

  let lm: IRDocumentInput["lm"] = null;
  if (value.lm !== undefined && value.lm !== null) {
    const parsed = SGLangServerSchema.safeParse(value.lm, PARSE_PARAMS);
    if (parsed.success) lm = parsed.data;
    else {
      for (const problem of problemsFromIssues(parsed.error.issues, value.lm)) {
        problems.push({ ...problem, path: `/lm${problem.path}` });
      }
    }
  }
  if (problems.length > 0) throw new IrValidationError("authoring document", problems);
  return { ir_version: "1.0.0", id: `graph:${String(id)}`, nodes, rules, state_schema, lm };
}

type Rules = NonNullable<IRDocumentInput["rules"]>;

/** A rule of the compiled document. */
function rule(
  id: string,
  when: Record<string, string>,
  actions: Rules[number]["then"],
): Rules[number] {
  // biome-ignore lint/suspicious/noThenProperty: `then` is the IR's wire name for a rule's actions.
  return { id, when, then: actions };
}

/** A bare tool id gets version 1 (`std.web_search` → `std.web_search@1`), as Stargraph does. */
function withVersion(tool: string): string {
  return tool.includes("@") ? tool : `${tool}@1`;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

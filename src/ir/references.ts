import type { IRDocument } from "./models/index.js";
import { hintFor, type Problem, renderActual } from "./problems.js";

/** The parallel join strategies Keel runs. */
export const PARALLEL_STRATEGIES = ["all", "any", "race", "quorum"] as const;

/** Options of the reference stage. */
export interface ReferenceOptions {
  /** Node kinds that can be built; when given, other kinds (except `module:Export`) are problems. */
  nodeKinds?: Iterable<string>;
}

/** A user-code node reference: `module/path:ExportName` or `module.path:ClassName`. */
export const USER_CODE_KIND = /^[^:\s]+:[A-Za-z_$][\w$]*$/;

/**
 * The last stage of validation: everything that points at a node points at a declared node
 * (goto, retry, parallel targets and joins, `on_timeout: "goto:<node>"`), parallel strategies are
 * known, and (when `nodeKinds` is given) node kinds can be built.
 */
export function checkReferences(doc: IRDocument, options: ReferenceOptions = {}): Problem[] {
  const problems: Problem[] = [];
  const nodes = new Set(doc.nodes.map((node) => node.id));
  const target = (id: string, path: string, what: string) => {
    if (nodes.has(id)) return;
    problems.push({
      code: "unknown_node",
      path,
      message: `${what} "${id}" is not a node of this document.`,
      expected: `one of ${[...nodes].map((n) => JSON.stringify(n)).join(", ") || "(no nodes)"}`,
      actual: renderActual(id),
      hint: hintFor("unknown_node"),
    });
  };
  const join = (id: string, path: string) => {
    if (id !== "") target(id, path, "Join node");
  };
  const strategy = (value: string, path: string) => {
    if ((PARALLEL_STRATEGIES as readonly string[]).includes(value)) return;
    problems.push({
      code: "unknown_strategy",
      path,
      message: `Unknown parallel strategy "${value}".`,
      expected: PARALLEL_STRATEGIES.join(" | "),
      actual: renderActual(value),
      hint: hintFor("unknown_strategy"),
    });
  };

  if (options.nodeKinds !== undefined) {
    const kinds = new Set(options.nodeKinds);
    doc.nodes.forEach((node, index) => {
      if (kinds.has(node.kind) || USER_CODE_KIND.test(node.kind)) return;
      problems.push({
        code: "unknown_node_kind",
        path: `/nodes/${index}/kind`,
        message: `Node "${node.id}" has kind "${node.kind}", which is not registered.`,
        expected: [...kinds].join(" | ") || "a registered kind",
        actual: renderActual(node.kind),
        hint: hintFor("unknown_node_kind"),
      });
    });
  }

  doc.rules.forEach((rule, ruleIndex) => {
    rule.then.forEach((action, actionIndex) => {
      const base = `/rules/${ruleIndex}/then/${actionIndex}`;
      switch (action.kind) {
        case "goto":
        case "retry":
          target(action.target, `${base}/target`, `${action.kind} target`);
          break;
        case "parallel":
          for (const [i, id] of action.targets.entries()) {
            target(id, `${base}/targets/${i}`, "Parallel target");
          }
          join(action.join, `${base}/join`);
          strategy(action.strategy, `${base}/strategy`);
          break;
        case "interrupt":
          checkOnTimeout(action.on_timeout, `${base}/on_timeout`, problems, target);
          break;
        default:
          break;
      }
    });
  });
  doc.parallel.forEach((block, blockIndex) => {
    const base = `/parallel/${blockIndex}`;
    for (const [i, id] of block.targets.entries()) {
      target(id, `${base}/targets/${i}`, "Parallel target");
    }
    join(block.join, `${base}/join`);
    strategy(block.strategy, `${base}/strategy`);
  });
  return problems;
}

function checkOnTimeout(
  value: string,
  path: string,
  problems: Problem[],
  target: (id: string, path: string, what: string) => void,
): void {
  if (value === "halt") return;
  if (value.startsWith("goto:")) {
    target(value.slice("goto:".length), path, "on_timeout target");
    return;
  }
  problems.push({
    code: "invalid_on_timeout",
    path,
    message: `on_timeout "${value}" is neither "halt" nor "goto:<node_id>".`,
    expected: '"halt" | "goto:<node_id>"',
    actual: renderActual(value),
    hint: hintFor("invalid_on_timeout"),
  });
}

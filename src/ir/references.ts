import type { Action, IRDocument, ParallelAction } from "./models/index.js";
import { hintFor, type Problem, renderActual } from "./problems.js";
import { parseSlots } from "./slots.js";

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
 * known, an assert's `slots` is `""` or a JSON object's text, and (when `nodeKinds` is given)
 * node kinds can be built.
 */
export function checkReferences(doc: IRDocument, options: ReferenceOptions = {}): Problem[] {
  const problems: Problem[] = [];
  const nodes = new Set(doc.nodes.map((node) => node.id));
  // Paths are built only for a problem (checked inline first): a 5,000-node document has
  // thousands of references, and a closure or a string per reference shows in the bench.
  const unknownNode = (id: string, path: string, what: string) => {
    problems.push({
      code: "unknown_node",
      path,
      message: `${what} "${id}" is not a node of this document.`,
      expected: `one of ${[...nodes].map((n) => JSON.stringify(n)).join(", ") || "(no nodes)"}`,
      actual: renderActual(id),
      hint: hintFor("unknown_node"),
    });
  };
  // A top-level block's join may name no node: the run then joins at the end of the block, as
  // Stargraph runs such documents (documentWarnings reports it).
  const checkBlock = (block: ParallelShape, base: string, joinMayDangle = false) => {
    for (let i = 0; i < block.targets.length; i++) {
      const id = block.targets[i] as string;
      if (!nodes.has(id)) unknownNode(id, `${base}/targets/${i}`, "Parallel target");
    }
    if (block.join !== "" && !nodes.has(block.join) && !joinMayDangle)
      unknownNode(block.join, `${base}/join`, "Join node");
    if (!(PARALLEL_STRATEGIES as readonly string[]).includes(block.strategy)) {
      problems.push({
        code: "unknown_strategy",
        path: `${base}/strategy`,
        message: `Unknown parallel strategy "${block.strategy}".`,
        expected: PARALLEL_STRATEGIES.join(" | "),
        actual: renderActual(block.strategy),
        hint: hintFor("unknown_strategy"),
      });
    }
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

  for (let r = 0; r < doc.rules.length; r++) {
    const then = (doc.rules[r] as IRDocument["rules"][number]).then;
    for (let a = 0; a < then.length; a++) {
      const action = then[a] as Action;
      switch (action.kind) {
        case "goto":
        case "retry":
          if (!nodes.has(action.target))
            unknownNode(action.target, `/rules/${r}/then/${a}/target`, `${action.kind} target`);
          break;
        case "parallel":
          checkBlock(action, `/rules/${r}/then/${a}`);
          break;
        case "assert": {
          if (action.slots === "") break;
          const slots = parseSlots(action.slots);
          if (!slots.ok) {
            problems.push({
              code: "invalid_slots",
              path: `/rules/${r}/then/${a}/slots`,
              message: `The slots of assert "${action.fact}" are ${slots.reason}.`,
              expected: '"" or the JSON text of an object, e.g. "{\\"queue\\":\\"refunds\\"}"',
              actual: renderActual(slots.actual),
              hint: hintFor("invalid_slots"),
            });
          }
          break;
        }
        case "interrupt": {
          // Without a timeout, on_timeout never acts: a value no run can use is only a warning.
          if (action.timeout === null) break;
          const problem = onTimeoutProblem(action.on_timeout, nodes);
          if (problem === "unknown")
            unknownNode(
              action.on_timeout.slice("goto:".length),
              `/rules/${r}/then/${a}/on_timeout`,
              "on_timeout target",
            );
          else if (problem === "invalid")
            problems.push(invalidOnTimeout(action.on_timeout, `/rules/${r}/then/${a}/on_timeout`));
          break;
        }
        default:
          break;
      }
    }
  }
  for (let b = 0; b < doc.parallel.length; b++) {
    checkBlock(doc.parallel[b] as ParallelShape, `/parallel/${b}`, true);
  }
  return problems;
}

type ParallelShape = Pick<ParallelAction, "targets" | "join" | "strategy">;

/** What is wrong with an `on_timeout` value: nothing, a goto to an unknown node, or its form. */
export function onTimeoutProblem(
  value: string,
  nodes: ReadonlySet<string>,
): "unknown" | "invalid" | undefined {
  if (value === "halt") return undefined;
  if (value.startsWith("goto:")) return nodes.has(value.slice(5)) ? undefined : "unknown";
  return "invalid";
}

function invalidOnTimeout(value: string, path: string): Problem {
  return {
    code: "invalid_on_timeout",
    path,
    message: `on_timeout "${value}" is neither "halt" nor "goto:<node_id>".`,
    expected: '"halt" | "goto:<node_id>"',
    actual: renderActual(value),
    hint: hintFor("invalid_on_timeout"),
  };
}

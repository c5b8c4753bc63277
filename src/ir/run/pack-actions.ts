import { KeelError } from "../../core/index.js";
import { type Firing, type RuleEngine, toPlain, type Value } from "../../rules/index.js";
import { type Action, ActionSchema } from "../models/index.js";

/**
 * IR actions from CLIPS rules. A governance pack is plain CLIPS, so its rules cannot carry the
 * IR's `then` list; instead their right-hand side calls `(ir-action <kind> <arg>…)`, which queues
 * the action for the firing that called it. The run then treats it exactly like a document rule's
 * action (same priority scheme, same transitions):
 *
 * | call | action |
 * |---|---|
 * | `(ir-action goto <node>)` | `goto` |
 * | `(ir-action halt ["reason"])` | `halt` |
 * | `(ir-action retry <node> [backoff_ms])` | `retry` |
 * | `(ir-action parallel (create$ <node>…) [<join>] [<strategy>])` | `parallel` |
 * | `(ir-action interrupt "prompt" [timeout] [on_timeout] [capability])` | `interrupt` |
 *
 * `assert`/`retract` are CLIPS's own. A bad call (unknown kind, missing or wrong argument, a node
 * the document does not have) is a `RULES_RUNTIME` error naming the rule.
 */
export const IR_ACTION_FUNCTION = "ir-action";

/** Actions queued by `(ir-action …)` calls, per engine, with the firing that made them. */
const queued = new WeakMap<RuleEngine, Array<{ firing: Firing; action: Action }>>();

/** Gives `engine` the `ir-action` function; targets are checked against `nodes`. */
export function installActionFunction(engine: RuleEngine, nodes: ReadonlySet<string>): void {
  const queue: Array<{ firing: Firing; action: Action }> = [];
  queued.set(engine, queue);
  engine.registerFunction(IR_ACTION_FUNCTION, (...args: Value[]) => {
    // The firing being executed is the last one logged: the engine logs it before its RHS runs.
    const log = engine.explain();
    const firing = log[log.length - 1];
    if (!firing) throw invalid("(ir-action) was called outside a rule");
    queue.push({ firing, action: actionOf(args.map(toPlain), nodes) });
    return true;
  });
}

/**
 * The firings with the actions their `(ir-action …)` calls queued appended to their own (a
 * document rule's `then`), in firing order; the queue is emptied.
 */
export function withQueuedActions(engine: RuleEngine, firings: readonly Firing[]): Firing[] {
  const queue = queued.get(engine);
  if (!queue || queue.length === 0) return firings as Firing[];
  const extra = new Map<Firing, Action[]>();
  for (const { firing, action } of queue) extra.set(firing, [...(extra.get(firing) ?? []), action]);
  queue.length = 0;
  return firings.map((firing) => {
    const more = extra.get(firing);
    return more ? { ...firing, actions: [...(firing.actions ?? []), ...more] } : firing;
  });
}

function actionOf(args: unknown[], nodes: ReadonlySet<string>): Action {
  const [kind, ...rest] = args;
  const node = (value: unknown, what: string): string => {
    if (typeof value !== "string" || !nodes.has(value))
      throw invalid(`(ir-action ${String(kind)}): ${what} ${JSON.stringify(value)} is not a node`);
    return value;
  };
  const optional = <T>(value: unknown, key: string): Record<string, T> =>
    value === undefined ? {} : { [key]: value as T };
  let raw: Record<string, unknown>;
  switch (kind) {
    case "goto":
      raw = { kind, target: node(rest[0], "target") };
      break;
    case "halt":
      raw = { kind, ...optional(rest[0], "reason") };
      break;
    case "retry":
      raw = { kind, target: node(rest[0], "target"), ...optional(rest[1], "backoff_ms") };
      break;
    case "parallel": {
      const targets = Array.isArray(rest[0]) ? rest[0] : [rest[0]];
      for (const target of targets) node(target, "parallel target");
      if (rest[1] !== undefined && rest[1] !== "") node(rest[1], "join");
      raw = {
        kind,
        targets,
        ...optional(rest[1], "join"),
        ...optional(rest[2], "strategy"),
      };
      break;
    }
    case "interrupt": {
      const onTimeout = rest[2];
      if (typeof onTimeout === "string" && onTimeout.startsWith("goto:"))
        node(onTimeout.slice(5), "on_timeout target");
      raw = {
        kind,
        prompt: rest[0],
        ...optional(rest[1], "timeout"),
        ...optional(onTimeout, "on_timeout"),
        ...optional(rest[3], "requested_capability"),
      };
      break;
    }
    default:
      throw invalid(
        `(ir-action ${String(kind)}): the kind must be goto, halt, retry, parallel or interrupt (assert and retract are CLIPS's own)`,
      );
  }
  const parsed = ActionSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(
      `(ir-action ${String(kind)}): ${issue ? `${issue.path.join(".") || "action"}: ${issue.message}` : "invalid"}`,
    );
  }
  return parsed.data;
}

function invalid(message: string): KeelError {
  // No `rule` in the details: the engine adds the name of the rule whose RHS threw.
  return new KeelError("RULES_RUNTIME", message, {
    hint: 'See docs/ir.md, "Actions from packs", for the (ir-action …) forms.',
  });
}

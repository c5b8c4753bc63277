import type { Send } from "./send.js";

/** Options of a `Command`. */
export interface CommandOptions<Update = Record<string, unknown>, Resume = unknown> {
  /** A state update, applied as if the node had returned it. */
  update?: Update;
  /** Where to go next: node names, `Send`s, or `END` — in addition to the node's static edges. */
  goto?: string | Send | Array<string | Send>;
  /** The value `interrupt()` returns when a paused run is resumed with this command. */
  resume?: Resume;
  /** `Command.PARENT` sends the update and goto to the graph that runs this subgraph. */
  graph?: string;
}

/**
 * Returned by a node to update the state and route in one value, or passed to `invoke` to resume
 * an interrupted run.
 *
 * @example
 * // in a node
 * return new Command({ update: { status: "escalated" }, goto: "human" });
 * // resuming
 * await graph.invoke(new Command({ resume: "approved" }), config);
 */
export class Command<Update = Record<string, unknown>, Resume = unknown> {
  readonly lg_name = "Command";
  /** Tells LangChain's tools to return this as it is, not wrapped in a ToolMessage. */
  readonly lc_direct_tool_output = true;
  /** Route a subgraph's command to its parent graph. */
  static readonly PARENT = "__parent__";

  readonly update: Update | undefined;
  readonly goto: Array<string | Send>;
  readonly resume: Resume | undefined;
  readonly graph: string | undefined;

  constructor(options: CommandOptions<Update, Resume> = {}) {
    this.update = options.update;
    this.goto =
      options.goto === undefined ? [] : Array.isArray(options.goto) ? options.goto : [options.goto];
    this.resume = options.resume;
    this.graph = options.graph;
  }

  /**
   * LangGraph.js's JSON form: `{ lg_name: "Command", update, resume, goto }`, each `Send` in
   * `goto` in its own JSON form (a key that is undefined is left out by `JSON.stringify`).
   *
   * @example
   * JSON.stringify(new Command({ goto: "next" })); // '{"lg_name":"Command","goto":["next"]}'
   */
  toJSON(): { lg_name: "Command"; update?: Update; resume?: Resume; goto: unknown[] } {
    return {
      lg_name: this.lg_name,
      update: this.update,
      resume: this.resume,
      goto: this.goto.map((target) =>
        typeof target === "string" ? target : (target as { toJSON(): unknown }).toJSON(),
      ),
    };
  }

  /** True when the command carries a resume value (`resume: undefined` does not count). */
  hasResume(): boolean {
    return this.resume !== undefined;
  }
}

/** True for a `Command` (also one made by another copy of this module). */
export function isCommand(value: unknown): value is Command {
  return (
    value instanceof Command ||
    (typeof value === "object" &&
      value !== null &&
      (value as { lg_name?: unknown }).lg_name === "Command")
  );
}

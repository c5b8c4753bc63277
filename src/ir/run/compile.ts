import { setTimeout as sleep } from "node:timers/promises";
import type { BaseCheckpointSaver } from "../../checkpoint/base/index.js";
import {
  Annotation,
  Command,
  END,
  type RunConfig,
  Send,
  START,
  StateGraph,
} from "../../graph/index.js";
import type { RuleEngine } from "../../rules/index.js";
import { IrValidationError } from "../errors.js";
import type { Action, IRDocument, ParallelAction } from "../models/index.js";
import { graphHash } from "../serialize.js";
import { validateDocument } from "../validate.js";
import { engineFor, keep, release } from "./engine-state.js";
import { type Mirror, mirrorState } from "./facts.js";
import { type IrNode, type NodeFactory, resolveNodes } from "./node-kinds.js";
import { mountPacks, type PackSource } from "./packs.js";
import { type BranchResult, resolveJoin } from "./parallel.js";
import type { Transition } from "./routing.js";
import { runRules, timeoutMillis } from "./rules-step.js";
import type { IrRunState } from "./run-state.js";
import { assertStateUpdate, type StateClasses, type StateShape, stateShapeOf } from "./state.js";
import { WAIT, waitNode } from "./wait-node.js";

/** Options of {@link compileDocument}. */
export interface CompileDocumentOptions {
  /** More node kinds, by name (`echo` and `halt` are built in). */
  nodeKinds?: Record<string, NodeFactory>;
  /** State classes a document may name in `state_class`. */
  stateClasses?: StateClasses;
  /** Governance packs by id: their CLIPS source (and the version they are, the plugin they come from). */
  packs?: Record<string, PackSource>;
  /** Where `module/path:Export` node kinds are resolved from (the document's folder). */
  baseDir?: string;
  checkpointer?: BaseCheckpointSaver;
}

const JOIN = "__ir_join__";

/** A compiled IR document: the graph, its hash and what the state holds. */
export interface CompiledDocument {
  // biome-ignore lint/suspicious/noExplicitAny: the graph's state type is built at run time.
  graph: any;
  graphHash: string;
  document: IRDocument;
  fields: readonly string[];
}

/**
 * Compiles an IR document onto the graph engine and the rule engine. Throws IrValidationError
 * with every problem (invalid document, unknown node kinds, bad state types, packs).
 *
 * @example
 * const { graph } = await compileDocument(doc, { nodeKinds: { dspy: () => () => ({}) } });
 * await graph.invoke({ message: "disk full", severity: 5 });
 */
export async function compileDocument(
  input: unknown,
  options: CompileDocumentOptions = {},
): Promise<CompiledDocument> {
  const result = validateDocument(input);
  if (!result.ok) throw new IrValidationError("IR document", result.problems);
  const doc = result.document;
  const state = stateShapeOf(doc, options.stateClasses ?? {});
  const nodes = await resolveNodes(doc, options.nodeKinds ?? {}, options.baseDir ?? process.cwd());
  const problems = [...state.problems, ...nodes.problems];
  const packs = mountPacks(doc, options.packs ?? {}, problems);
  if (problems.length > 0 || !state.shape) throw new IrValidationError("IR document", problems);
  // The migrate list names hashes, so it cannot be part of the hash it migrates to: the run's
  // graph hash is the document's with an empty migrate list (docs/ir.md).
  // Computed on first use (a run's first step, or a caller reading it): hashing a large
  // document costs more than compiling it.
  let memo: string | undefined;
  const hash = () => {
    memo ??= graphHash({ ...doc, migrate: [] });
    return memo;
  };
  const graph = buildGraph(doc, state.shape, nodes.nodes, packs, hash);
  return {
    graph: graph.compile(options.checkpointer ? { checkpointer: options.checkpointer } : {}),
    get graphHash() {
      return hash();
    },
    document: doc,
    fields: state.shape.fields,
  };
}

type GraphState = Record<string, unknown> & {
  __ir: IrRunState;
  __ir_transitions: Transition[];
  __ir_results: BranchResult[];
  __ir_branch?: { join: string; strategy: string; after: string; target: string };
};

function buildGraph(
  doc: IRDocument,
  shape: StateShape,
  impls: Map<string, IrNode>,
  packs: string[],
  hash: () => string,
) {
  const spec: Record<string, ReturnType<typeof Annotation>> = {};
  for (const field of shape.fields) spec[field] = Annotation<unknown>();
  const State = Annotation.Root({
    ...spec,
    __ir: Annotation<IrRunState>({
      reducer: (_old, next) => next,
      default: () => ({ graph_hash: hash(), rules: null, mirror: {}, pending: null }),
    }),
    __ir_transitions: Annotation<Transition[]>({
      reducer: (a, b) => a.concat(b),
      default: () => [],
    }),
    __ir_results: Annotation<BranchResult[]>({
      reducer: (a, b) => (b.length === 0 ? [] : a.concat(b)),
      default: () => [],
    }),
  });
  const order = doc.nodes.map((node) => node.id);
  // Positions by id: routing asks for them on every transition, so no indexOf over the nodes.
  const position = new Map(order.map((id, index) => [id, index]));
  const specs = new Map(doc.nodes.map((node) => [node.id, node]));
  const indexOf = (id: string) => position.get(id) ?? -1;
  const after = (id: string) => order[indexOf(id) + 1] ?? END;
  const userState = (state: GraphState) => {
    const out: Record<string, unknown> = {};
    for (const field of shape.fields) if (state[field] !== undefined) out[field] = state[field];
    return out;
  };

  // A top-level parallel block fans out whenever the run arrives at its first target.
  const blocks = new Map(
    doc.parallel.filter((b) => b.targets[0] !== undefined).map((b) => [b.targets[0] as string, b]),
  );
  const blockAt = (id: string) => blocks.get(id);

  const route = async (
    from: string,
    state: GraphState,
    update: Record<string, unknown>,
    engine: RuleEngine,
    mirror: Mirror,
  ): Promise<Command> => {
    const decision = runRules(engine);
    const ir = (pending: IrRunState["pending"] = null): IrRunState => ({
      graph_hash: state.__ir.graph_hash,
      rules: keep(engine),
      mirror,
      pending,
    });
    const record = (to: string, rule: string | null, reason: string): Transition => ({
      from,
      to,
      rule,
      reason,
      ...(decision.overridden.length > 0 ? { overridden: decision.overridden } : {}),
    });
    const winner = decision.winner;
    if (!winner) {
      const to = after(from);
      const block = blockAt(to);
      if (block) {
        return fanOut(
          from,
          block,
          state,
          update,
          ir(),
          record(
            block.targets.join(","),
            null,
            `fall through into a parallel block (${block.strategy})`,
          ),
        );
      }
      return new Command({
        update: {
          ...update,
          __ir: ir(),
          __ir_transitions: [record(to, null, "no rule fired: fall through")],
        },
        goto: to,
      });
    }
    const { rule, action } = winner;
    switch (action.kind) {
      case "goto": {
        const block = blockAt(action.target);
        if (block) {
          return fanOut(
            from,
            block,
            state,
            update,
            ir(),
            record(block.targets.join(","), rule, `goto into a parallel block (${block.strategy})`),
          );
        }
        return new Command({
          update: {
            ...update,
            __ir: ir(),
            __ir_transitions: [record(action.target, rule, "goto")],
          },
          goto: action.target,
        });
      }
      case "halt":
        return new Command({
          update: {
            ...update,
            __ir: ir(),
            __ir_transitions: [
              record(END, rule, action.reason ? `halt: ${action.reason}` : "halt"),
            ],
          },
          goto: END,
        });
      case "retry":
        if (action.backoff_ms > 0) await sleep(action.backoff_ms);
        return new Command({
          update: {
            ...update,
            __ir: ir(),
            __ir_transitions: [record(action.target, rule, `retry after ${action.backoff_ms} ms`)],
          },
          goto: action.target,
        });
      case "interrupt": {
        const deadline = timeoutMillis(action.timeout);
        const pending = {
          from,
          rule,
          action,
          deadline: deadline === null ? null : Date.now() + deadline,
        };
        return new Command({
          update: {
            ...update,
            __ir: ir(pending),
            __ir_transitions: [record(WAIT, rule, "interrupt: waiting for input")],
          },
          goto: WAIT,
        });
      }
      case "parallel":
        return fanOut(
          from,
          action,
          state,
          update,
          ir(),
          record(action.targets.join(","), rule, `parallel (${action.strategy})`),
        );
      default:
        throw new Error(`unhandled action ${(action as Action).kind}`);
    }
  };

  const fanOut = (
    from: string,
    action: Pick<ParallelAction, "targets" | "join" | "strategy">,
    state: GraphState,
    update: Record<string, unknown>,
    ir: IrRunState,
    transition: Transition,
  ): Command => {
    const last = action.targets.map(indexOf).reduce((a, b) => Math.max(a, b), indexOf(from));
    const branch = { join: action.join, strategy: action.strategy, after: order[last + 1] ?? END };
    const base = {
      ...userState(state),
      ...update,
      __ir: ir,
      __ir_transitions: [],
      __ir_results: [],
    };
    return new Command({
      update: { ...update, __ir: ir, __ir_transitions: [transition] },
      goto: action.targets.map(
        (target) => new Send(target, { ...base, __ir_branch: { ...branch, target } }),
      ),
    });
  };

  const graph = new StateGraph(State);
  for (const node of doc.nodes) {
    const impl = impls.get(node.id) as IrNode;
    graph.addNode(node.id, async (raw: unknown, config: RunConfig) => {
      const state = raw as GraphState;
      if (state.__ir_branch) return runBranch(node.id, impl, state, config);
      // The first step checks the run's input against the declared state.
      if (state.__ir.rules === null) assertStateUpdate(shape, userState(state), "the run's input");
      let joined: Record<string, unknown> = {};
      if (state.__ir_results.length > 0) joined = resolveJoin(state.__ir_results, shape);
      const current = { ...userState(state), ...joined };
      const own = ((await impl(current, { node, config })) ?? {}) as Record<string, unknown>;
      assertStateUpdate(shape, own, `node "${node.id}"`);
      const update = {
        ...joined,
        ...own,
        ...(state.__ir_results.length > 0 ? { __ir_results: [] } : {}),
      };
      if (node.kind === "halt") {
        release(doc, state.__ir.rules);
        return new Command({
          update: {
            ...update,
            __ir_transitions: [{ from: node.id, to: END, rule: null, reason: "halt node" }],
          },
          goto: END,
        });
      }
      const engine = engineFor(doc, packs, state.__ir.rules);
      const mirror = mirrorState(
        engine,
        state.__ir.mirror,
        { ...current, ...own },
        shape.fields,
        node.id,
      );
      const command = await route(node.id, state, update, engine, mirror);
      // A run that ends here hands its engine back for the next run of this document.
      if (command.goto.includes(END)) {
        release(doc, (command.update as { __ir?: IrRunState } | undefined)?.__ir?.rules ?? null);
      }
      return command;
    });
  }

  const runBranch = async (id: string, impl: IrNode, state: GraphState, config: RunConfig) => {
    const branch = state.__ir_branch as NonNullable<GraphState["__ir_branch"]>;
    const node = specs.get(id) as IRDocument["nodes"][number];
    let result: BranchResult;
    try {
      const own = ((await impl(userState(state), { node, config })) ?? {}) as Record<
        string,
        unknown
      >;
      assertStateUpdate(shape, own, `node "${id}"`);
      result = { target: id, ok: true, update: own, finishedAt: performance.now() };
    } catch (error) {
      result = {
        target: id,
        ok: false,
        error: (error as Error).message,
        finishedAt: performance.now(),
      };
    }
    const join = branch.join === "" ? JOIN : branch.join;
    return new Command({
      update: {
        __ir_results: [{ ...result, strategy: branch.strategy, after: branch.after }],
        __ir_transitions: [
          {
            from: id,
            to: join,
            rule: null,
            reason: `parallel branch ${result.ok ? "done" : "failed"}`,
          },
        ],
      },
      goto: join,
    });
  };

  graph.addNode(JOIN, (raw: unknown) => {
    const state = raw as GraphState;
    const joined = resolveJoin(state.__ir_results, shape);
    const next = state.__ir_results[0]?.after ?? END;
    return new Command({
      update: {
        ...joined,
        __ir_results: [],
        __ir_transitions: [{ from: JOIN, to: next, rule: null, reason: "parallel block joined" }],
      },
      goto: next,
    });
  });

  graph.addNode(WAIT, waitNode(shape, after));

  const first = order[0];
  graph.addEdge(START, first ?? END);
  return graph;
}

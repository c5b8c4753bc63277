import { setTimeout as sleep } from "node:timers/promises";
import type { BaseCheckpointSaver, BaseStore } from "../../checkpoint/base/index.js";
import {
  Annotation,
  Command,
  END,
  isGraphInterrupt,
  type RunConfig,
  START,
  StateGraph,
} from "../../graph/index.js";
import {
  IR_RULE_LIMITS,
  type RuleEngine,
  type RuleLimits,
  resolveRuleLimits,
} from "../../rules/index.js";
import { timeoutMillis } from "../duration.js";
import { IrValidationError } from "../errors.js";
import type { Action, IRDocument } from "../models/index.js";
import type { Problem } from "../problems.js";
import { graphHashOfValidated } from "../serialize.js";
import { factStyleOf } from "../template-facts.js";
import { validateDocument } from "../validate.js";
import { arrivals, type GraphState } from "./arrival.js";
import { engineFor, keep, prepareEngine, release, setStateFields } from "./engine-state.js";
import { type Mirror, mirrorState } from "./facts.js";
import { type FiredRule, type IrGovernance, refuseToolCalls } from "./governance.js";
import { type IrNode, type NodeFactory, resolveNodes } from "./node-kinds.js";
import { mountPacks, type PackSource } from "./packs.js";
import { type BranchResult, resolveJoin } from "./parallel.js";
import type { Transition } from "./routing.js";
import { runRules } from "./rules-step.js";
import type { IrRunState } from "./run-state.js";
import {
  assertStateUpdate,
  type StateClasses,
  type StateShape,
  stateProblems,
  stateShapeOf,
} from "./state.js";
import { bindStores, type StoreBindingContext, type StoreProvider } from "./store-bindings.js";
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
  /**
   * What governs the document's runs (the governed runtime of `keel/runtime`): each node
   * execution is a step whose tool calls pass the gates and the ledger, every transition and rule
   * firing is audited, and an interrupt asks a person through an Approval. Without it runs are
   * ungoverned (library use, tests), and a node's tool call is refused.
   */
  governance?: IrGovernance;
  /** Store providers by id, beside the registered ones (`registerStoreProviders`). */
  storeProviders?: Record<string, StoreProvider>;
  /** What providers build the document's `stores` on (the run's kernel database). */
  storeContext?: StoreBindingContext;
  /**
   * Bounds on the rules of each step (document rules and packs) over `IR_RULE_LIMITS`: a rule
   * that does not settle fails the step with RULES_LIMIT naming it (the run is left `failed`).
   */
  ruleLimits?: Partial<RuleLimits>;
}

const JOIN = "__ir_join__";
const ENTRY = "__ir_entry__";

/** A compiled IR document: the graph, its hash and what the state holds. */
export interface CompiledDocument {
  // biome-ignore lint/suspicious/noExplicitAny: the graph's state type is built at run time.
  graph: any;
  graphHash: string;
  document: IRDocument;
  fields: readonly string[];
  /** The document's `stores` bindings, by name (one binding is also the graph's store). */
  stores: Readonly<Record<string, BaseStore>>;
  /**
   * The super-steps a run of the document may take before it is stopped as a runaway loop: ten
   * per node, at least 25 (the graph engine's default, which a long chain of nodes outgrows).
   * `keel run` passes it to every run of the document; a caller of `graph.invoke` may too.
   */
  recursionLimit: number;
  /**
   * Every problem with `input` as a run's input or an interrupt's answer (`what` names it in
   * messages): not an object, undeclared fields, values of the wrong type. Check before starting
   * or resuming a run, so a bad input is refused instead of failing the run. With `start` (a new
   * run's input) a required field it leaves out is a problem too (`missing`).
   */
  checkInput(input: unknown, what?: string, options?: { start?: boolean }): Problem[];
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
  // The run's graph hash is graphHash's, the one `keel ir hash` prints (migrate left out),
  // taken now, while the document is still validation's alone (no node factory has seen it):
  // it cannot have changed since, so it is not parsed again (every run reads the hash).
  const hash = graphHashOfValidated(doc);
  const state = stateShapeOf(doc, options.stateClasses ?? {});
  const nodes = await resolveNodes(doc, options.nodeKinds ?? {}, options.baseDir ?? process.cwd());
  const problems = [...state.problems, ...nodes.problems];
  const packs = mountPacks(doc, options.packs ?? {}, problems);
  const stores = bindStores(
    doc,
    options.storeProviders ?? {},
    options.storeContext ?? {},
    problems,
  );
  if (problems.length > 0 || !state.shape) throw new IrValidationError("IR document", problems);
  setStateFields(doc, state.shape.fields);
  // The rules are built now, so one the engine refuses fails here, before any run starts.
  const refused = prepareEngine(doc, packs);
  if (refused.length > 0) throw new IrValidationError("IR document", refused);
  const shape = state.shape;
  const limits = resolveRuleLimits(options.ruleLimits, IR_RULE_LIMITS);
  const graph = buildGraph(
    doc,
    shape,
    nodes.nodes,
    packs,
    hash,
    options.governance,
    stores,
    limits,
  );
  // One binding is the graph's `config.store`; with several, nodes pick from `context.stores`.
  const bound = Object.values(stores);
  const store = bound.length === 1 ? bound[0] : undefined;
  return {
    graph: graph.compile({
      ...(options.checkpointer ? { checkpointer: options.checkpointer } : {}),
      ...(store ? { store } : {}),
    }),
    stores,
    graphHash: hash,
    document: doc,
    fields: state.shape.fields,
    recursionLimit: Math.max(25, 10 * doc.nodes.length),
    checkInput: (input, what = "The run's input", options = {}) =>
      stateProblems(shape, input, what, options),
  };
}

function buildGraph(
  doc: IRDocument,
  shape: StateShape,
  impls: Map<string, IrNode>,
  packs: string[],
  hash: string,
  governance: IrGovernance | undefined,
  stores: Record<string, BaseStore>,
  limits: RuleLimits,
) {
  const spec: Record<string, ReturnType<typeof Annotation>> = {};
  for (const field of shape.fields) spec[field] = Annotation<unknown>();
  const State = Annotation.Root({
    ...spec,
    __ir: Annotation<IrRunState>({
      reducer: (_old, next) => next,
      default: () => ({ graph_hash: hash, rules: null, mirror: {}, pending: null }),
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
  const { arrive, fanOut } = arrivals({ order, indexOf, blocks, userState });
  // A node's own code: a governed step (tool calls through gates and ledger) when governed.
  const execute = async (
    impl: IrNode,
    node: IRDocument["nodes"][number],
    current: Record<string, unknown>,
    config: RunConfig,
  ): Promise<Record<string, unknown>> => {
    const own = governance
      ? await governance.node(
          node,
          current,
          async (call, describeTool) =>
            impl(current, {
              node,
              config,
              call,
              stores,
              ...(describeTool ? { describeTool } : {}),
            }),
          config,
        )
      : await impl(current, { node, config, call: refuseToolCalls, stores });
    return (own ?? {}) as Record<string, unknown>;
  };
  // Every transition (and the rules that decided it) is audited when governed.
  const observed = async (
    command: Command,
    config: RunConfig,
    fired: readonly FiredRule[] = [],
  ): Promise<Command> => {
    if (!governance?.transitions) return command;
    const update = command.update as { __ir_transitions?: Transition[] } | undefined;
    await governance.transitions(update?.__ir_transitions ?? [], fired, config);
    return command;
  };

  // `fired` receives the rules that fired (what the audit records beside the transition).
  const route = async (
    from: string,
    state: GraphState,
    update: Record<string, unknown>,
    engine: RuleEngine,
    mirror: Mirror,
    fired: FiredRule[],
  ): Promise<Command> => {
    const decision = runRules(engine);
    if (decision.fired) fired.push(...decision.fired);
    const ir = (pending: IrRunState["pending"] = null): IrRunState => ({
      graph_hash: state.__ir.graph_hash,
      rules: keep(engine),
      mirror,
      pending,
    });
    const overridden = decision.overridden;
    // The arrival written out field by field: spreading a shared object here made every step
    // allocate through V8's slow object-clone path (about a third of the transition rate).
    const move = (to: string, rule: string | null, reason: string, next: IrRunState) => ({
      from,
      to,
      rule,
      reason,
      state,
      update,
      ir: next,
      overridden,
    });
    const winner = decision.winner;
    if (!winner) return arrive(move(after(from), null, "no rule fired: fall through", ir()));
    const { rule, action } = winner;
    switch (action.kind) {
      case "goto":
        return arrive(move(action.target, rule, "goto", ir()));
      case "halt":
        return arrive(move(END, rule, action.reason ? `halt: ${action.reason}` : "halt", ir()));
      case "retry":
        if (action.backoff_ms > 0) await sleep(action.backoff_ms);
        return arrive(move(action.target, rule, `retry after ${action.backoff_ms} ms`, ir()));
      case "interrupt": {
        const deadline = timeoutMillis(action.timeout);
        const pending = {
          from,
          rule,
          action,
          deadline: deadline === null ? null : Date.now() + deadline,
        };
        return arrive(move(WAIT, rule, "interrupt: waiting for input", ir(pending)));
      }
      case "parallel":
        return fanOut(
          move(action.targets.join(","), rule, `parallel (${action.strategy})`, ir()),
          action,
        );
      default:
        throw new Error(`unhandled action ${(action as Action).kind}`);
    }
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
      const own = await execute(impl, node, current, config);
      assertStateUpdate(shape, own, `node "${node.id}"`);
      const update = {
        ...joined,
        ...own,
        ...(state.__ir_results.length > 0 ? { __ir_results: [] } : {}),
      };
      if (node.kind === "halt") {
        release(doc, state.__ir.rules);
        return observed(
          new Command({
            update: {
              ...update,
              __ir_transitions: [{ from: node.id, to: END, rule: null, reason: "halt node" }],
            },
            goto: END,
          }),
          config,
        );
      }
      const engine = engineFor(doc, packs, state.__ir.rules);
      // Pooled and restored engines are shared by runs: each step sets this run's bounds.
      engine.setLimits(limits, limits);
      const mirror = mirrorState(
        engine,
        state.__ir.mirror,
        { ...current, ...own },
        shape.fields,
        node.id,
        factStyleOf(doc),
      );
      const fired: FiredRule[] = [];
      const command = await route(node.id, state, update, engine, mirror, fired);
      // A run that ends here hands its engine back for the next run of this document.
      if (command.goto.includes(END)) {
        release(doc, (command.update as { __ir?: IrRunState } | undefined)?.__ir?.rules ?? null);
      }
      return observed(command, config, fired);
    });
  }

  const runBranch = async (id: string, impl: IrNode, state: GraphState, config: RunConfig) => {
    const branch = state.__ir_branch as NonNullable<GraphState["__ir_branch"]>;
    const node = specs.get(id) as IRDocument["nodes"][number];
    let result: BranchResult;
    try {
      const own = await execute(impl, node, userState(state), config);
      assertStateUpdate(shape, own, `node "${id}"`);
      result = { target: id, ok: true, update: own, finishedAt: performance.now() };
    } catch (error) {
      // A branch paused for a person (an approval of its tool call) pauses the run, not fails.
      if (isGraphInterrupt(error)) throw error;
      result = {
        target: id,
        ok: false,
        error: (error as Error).message,
        finishedAt: performance.now(),
      };
    }
    // A join naming no node (allowed on top-level blocks, with a warning) ends the block.
    const join = branch.join === "" || !position.has(branch.join) ? JOIN : branch.join;
    const command = new Command({
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
    return observed(command, config);
  };

  graph.addNode(JOIN, (raw: unknown, config: RunConfig) => {
    const state = raw as GraphState;
    const joined = resolveJoin(state.__ir_results, shape);
    const command = arrive({
      from: JOIN,
      to: state.__ir_results[0]?.after ?? END,
      rule: null,
      reason: "parallel block joined",
      state,
      update: { ...joined, __ir_results: [] },
      ir: state.__ir,
    });
    return observed(command, config);
  });

  graph.addNode(WAIT, waitNode(shape, after, arrive, governance, observed));

  const first = order[0] ?? END;
  if (blocks.has(first)) {
    // The first node opens a parallel block: an entry step fans out (the input checked first).
    graph.addNode(ENTRY, (raw: unknown, config: RunConfig) => {
      const state = raw as GraphState;
      assertStateUpdate(shape, userState(state), "the run's input");
      const command = arrive({
        from: START,
        to: first,
        rule: null,
        reason: "start",
        state,
        update: {},
        ir: state.__ir,
      });
      return observed(command, config);
    });
    graph.addEdge(START, ENTRY);
  } else {
    graph.addEdge(START, first);
  }
  return graph;
}

import type { BaseCheckpointSaver } from "../../checkpoint/base/index.js";
import type { AnnotationRoot, StateDefinition, StateType, UpdateType } from "../annotation.js";
import type { Command } from "../command.js";
import { CompiledStateGraph } from "../compiled-graph.js";
import { END, RESERVED_NAMES, START } from "../constants.js";
import { GraphValueError } from "../errors.js";
import type { RunConfig } from "../types.js";
import type {
  AddNodeOptions,
  GraphDeclaration,
  NodeAction,
  PathFunction,
  PathMap,
  SubgraphLike,
} from "./declarations.js";
import { isRunnableLike, type RunnableLike, runnableAction } from "./runnable-node.js";
import { validateGraph } from "./validate.js";

/** Options of `compile`. */
export interface CompileOptions {
  /** Saves a checkpoint per super-step; required for interrupts, history and `updateState`. */
  checkpointer?: BaseCheckpointSaver;
  /** Pause before these nodes run (`"*"`: before every node). */
  interruptBefore?: string[] | "*";
  /** Pause after these nodes ran (`"*"`: after every node). */
  interruptAfter?: string[] | "*";
  /** A name for the graph (used in errors and by subgraph namespaces). */
  name?: string;
}

/** A node of a graph with state `S`: a function of the state, a compiled subgraph or a LangChain Runnable. */
export type GraphNode<S extends StateDefinition> =
  | ((state: StateType<S>, config: RunConfig) => NodeReturn<S> | Promise<NodeReturn<S>>)
  | SubgraphLike
  | RunnableLike;

/** What a node may return: an update, a `Command` (or several), or nothing. */
export type NodeReturn<S extends StateDefinition> =
  | UpdateType<S>
  | Command<UpdateType<S>>
  | Array<Command<UpdateType<S>>>
  | null
  | undefined
  // biome-ignore lint/suspicious/noConfusingVoidType: a block body without `return` (sync or async) is typed as returning void, and such a node is fine ("no update"); undefined alone would reject it.
  | void;

/** `addConditionalEdges` in object form, as LangGraph.js also accepts. */
export interface ConditionalEdgesOptions<S extends StateDefinition> {
  source: string;
  path: (state: StateType<S>, config: RunConfig) => unknown;
  pathMap?: PathMap;
}

function isSubgraph(value: unknown): value is SubgraphLike {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as SubgraphLike).runAsSubgraph === "function"
  );
}

/**
 * Builds a state graph: nodes that read the shared state and return updates, joined by edges.
 * Same API as LangGraph.js's `StateGraph`.
 *
 * @example
 * const graph = new StateGraph(State)
 *   .addNode("draft", (s) => ({ text: `about ${s.topic}` }))
 *   .addEdge(START, "draft")
 *   .addEdge("draft", END)
 *   .compile();
 */
export class StateGraph<S extends StateDefinition> {
  private readonly declaration: GraphDeclaration;
  private compiled = false;

  constructor(schema: AnnotationRoot<S> | { stateSchema: AnnotationRoot<S> }) {
    const root = "stateSchema" in schema ? schema.stateSchema : schema;
    if (!root || typeof root !== "object" || !("spec" in root)) {
      throw new GraphValueError(
        "new StateGraph() needs a state schema made with Annotation.Root({...}).",
        {
          code: "INVALID_ARGUMENT",
          hint: "Pass Annotation.Root({...}) or { stateSchema: Annotation.Root({...}) }.",
        },
      );
    }
    this.declaration = { schema: root.spec, nodes: new Map(), edges: [], joins: [], branches: [] };
  }

  /** Adds a node: a function `(state, config) => update` or a compiled graph (a subgraph). */
  addNode(name: string, node: GraphNode<S>, options?: AddNodeOptions): this;
  /** Adds several nodes at once: `{ name: fn, … }`. */
  addNode(nodes: Record<string, GraphNode<S>>): this;
  addNode(
    nameOrNodes: string | Record<string, GraphNode<S>>,
    node?: GraphNode<S>,
    options: AddNodeOptions = {},
  ): this {
    if (typeof nameOrNodes !== "string") {
      for (const [name, each] of Object.entries(nameOrNodes)) this.addNode(name, each);
      return this;
    }
    const name = nameOrNodes;
    this.assertOpen();
    if (RESERVED_NAMES.has(name))
      throw new GraphValueError(`Node name "${name}" is reserved.`, {
        details: { node: name },
        hint: "Choose another name.",
      });
    if (name === "" || name.includes("|") || name.includes(":")) {
      throw new GraphValueError(
        `Node name "${name}" is not allowed: names must be non-empty and contain no "|" or ":".`,
        { details: { node: name } },
      );
    }
    if (this.declaration.nodes.has(name))
      throw new GraphValueError(`Node "${name}" is already in the graph.`, {
        details: { node: name },
        hint: "Give each node a unique name.",
      });
    if (Object.hasOwn(this.declaration.schema, name)) {
      throw new GraphValueError(`Node name "${name}" is also a state key; a name cannot be both.`, {
        details: { node: name },
        hint: `Rename the node, e.g. "${name}_node".`,
      });
    }
    const subgraph = isSubgraph(node) ? node : undefined;
    if (!subgraph && isRunnableLike(node)) node = runnableAction(node) as GraphNode<S>;
    if (!subgraph && typeof node !== "function") {
      throw new GraphValueError(
        `Node "${name}" must be a function, a compiled graph or a LangChain Runnable.`,
        {
          code: "INVALID_ARGUMENT",
          details: { node: name },
        },
      );
    }
    this.declaration.nodes.set(name, {
      name,
      action: subgraph ? undefined : (node as NodeAction<never>),
      subgraph,
      retryPolicy: options.retryPolicy,
      ends: options.ends,
    });
    return this;
  }

  /** `addEdge(a, b)`: b runs in the step after a. `addEdge([a, b], c)`: c runs once both a and b have run. */
  addEdge(source: string | string[], target: string): this {
    this.assertOpen();
    if (Array.isArray(source)) {
      if (source.length === 1) this.declaration.edges.push([source[0]!, target]);
      else this.declaration.joins.push({ sources: source, target });
    } else {
      this.declaration.edges.push([source, target]);
    }
    return this;
  }

  /**
   * Routes from `source` by a function of the state. It returns a node name, several, `END`, or
   * `Send`s; `pathMap` maps its results to node names (or lists the names it may return).
   */
  addConditionalEdges(
    source: string,
    path: (state: StateType<S>, config: RunConfig) => unknown,
    pathMap?: PathMap,
  ): this;
  addConditionalEdges(options: ConditionalEdgesOptions<S>): this;
  addConditionalEdges(
    sourceOrOptions: string | ConditionalEdgesOptions<S>,
    path?: (state: StateType<S>, config: RunConfig) => unknown,
    pathMap?: PathMap,
  ): this {
    this.assertOpen();
    const options =
      typeof sourceOrOptions === "string"
        ? { source: sourceOrOptions, path: path!, pathMap }
        : sourceOrOptions;
    if (typeof options.path !== "function") {
      throw new GraphValueError(
        `The path of the conditional edge from "${options.source}" must be a function.`,
        { code: "INVALID_ARGUMENT" },
      );
    }
    const map = Array.isArray(options.pathMap)
      ? Object.fromEntries(options.pathMap.map((n) => [n, n]))
      : options.pathMap;
    this.declaration.branches.push({
      source: options.source,
      path: options.path as PathFunction<never>,
      pathMap: map,
    });
    return this;
  }

  /** Adds nodes that run one after another: `addSequence([["a", fa], ["b", fb]])` or `{ a: fa, b: fb }`. */
  addSequence(nodes: Array<[string, GraphNode<S>]> | Record<string, GraphNode<S>>): this {
    const list = Array.isArray(nodes) ? nodes : Object.entries(nodes);
    if (list.length === 0)
      throw new GraphValueError("addSequence needs at least one node.", {
        code: "INVALID_ARGUMENT",
      });
    let previous: string | undefined;
    for (const [name, node] of list) {
      this.addNode(name, node);
      if (previous !== undefined) this.addEdge(previous, name);
      previous = name;
    }
    return this;
  }

  /** `setEntryPoint(x)` is `addEdge(START, x)` (LangGraph.js spelling). */
  setEntryPoint(name: string): this {
    return this.addEdge(START, name);
  }

  /** `setFinishPoint(x)` is `addEdge(x, END)` (LangGraph.js spelling). */
  setFinishPoint(name: string): this {
    return this.addEdge(name, END);
  }

  /** Checks the graph (every problem at once) and makes it runnable. */
  compile(options: CompileOptions = {}): CompiledStateGraph<StateType<S>, UpdateType<S>> {
    const names = [...this.declaration.nodes.keys()];
    const before = options.interruptBefore === "*" ? names : (options.interruptBefore ?? []);
    const after = options.interruptAfter === "*" ? names : (options.interruptAfter ?? []);
    validateGraph(this.declaration, { before, after });
    this.compiled = true;
    return new CompiledStateGraph<StateType<S>, UpdateType<S>>(this.declaration, {
      checkpointer: options.checkpointer,
      interruptBefore: before,
      interruptAfter: after,
      name: options.name ?? "LangGraph",
    });
  }

  private assertOpen(): void {
    // Compiling snapshots the declaration; changing it afterwards would silently not apply.
    if (this.compiled) {
      throw new GraphValueError(
        "The graph was already compiled; build a new StateGraph to change it.",
        { code: "INVALID_ARGUMENT" },
      );
    }
  }
}

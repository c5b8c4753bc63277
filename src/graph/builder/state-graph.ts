import type { BaseCache, BaseCheckpointSaver, BaseStore } from "../../checkpoint/base/index.js";
import type { AnnotationRoot, StateDefinition, StateType, UpdateType } from "../annotation.js";
import type { Command } from "../command.js";
import { CompiledStateGraph } from "../compiled-graph.js";
import { END, RESERVED_NAMES, START } from "../constants.js";
import { GraphValueError, NodeError } from "../errors.js";
import { recordSchemaSources, schemaSourcesOf } from "../schema/graph-schemas.js";
import { resolveSchemas, runtimeDefinitionOf } from "../schema/resolve.js";
import type { CachePolicy, RetryPolicy, RunConfig } from "../types.js";
import type {
  AddNodeOptions,
  ErrorHandler,
  GraphDeclaration,
  NodeAction,
  NodeDeclaration,
  NodeDefaults,
  PathFunction,
  PathMap,
  SubgraphLike,
} from "./declarations.js";
import { pickKeys, withNodeInput } from "./node-input.js";
import { isRunnableLike, type RunnableLike, runnableAction } from "./runnable-node.js";
import { validateGraph } from "./validate.js";

/** What `new StateGraph(…)` takes as its state (see the constructor). */
export type StateGraphInit<S extends StateDefinition> =
  | AnnotationRoot<S>
  | { readonly Definition: S }
  | S
  | {
      stateSchema?: AnnotationRoot<S> | { readonly Definition: S };
      state?: AnnotationRoot<S> | { readonly Definition: S };
      input?: unknown;
      output?: unknown;
    }
  | { channels: Record<string, unknown> };

/** The second argument of `new StateGraph(state, options)`: separate input and output schemas. */
export interface StateGraphOptions {
  /** The keys a caller may pass in (added to the state when they are not in it). */
  input?: unknown;
  /** The keys `invoke` returns (added to the state when they are not in it). */
  output?: unknown;
}

/** Options of `compile`. */
export interface CompileOptions {
  /** Saves a checkpoint per super-step; required for interrupts, history and `updateState`. */
  /**
   * Saves a checkpoint per super-step; required for interrupts, history and `updateState`. On a
   * graph used as a subgraph: omitted, it uses the parent's per call; `true`, it keeps its own
   * state across the parent's calls (a namespace per node, not per task); `false`, it runs
   * without checkpoints even under a parent that has them.
   */
  checkpointer?: BaseCheckpointSaver | boolean;
  /** Pause before these nodes run (`"*"`: before every node). */
  interruptBefore?: string[] | "*";
  /** Pause after these nodes ran (`"*"`: after every node). */
  interruptAfter?: string[] | "*";
  /** Long-term memory handed to every node as `config.store` (e.g. `new InMemoryStore()`). */
  store?: BaseStore;
  /** A name for the graph (used in errors and by subgraph namespaces). */
  name?: string;
  /** Where nodes with a `cachePolicy` keep their results (e.g. `new InMemoryCache()`). */
  cache?: BaseCache;
}

/** A node's policies as `builder.nodes` / `graph.nodes` show them. */
export interface NodePolicies {
  retryPolicy: RetryPolicy | undefined;
  cachePolicy: CachePolicy | boolean | undefined;
}

/** `addNode([])` / `addNode({})`: LangGraph.js's message. */
function noNodes(): GraphValueError {
  return new GraphValueError("No nodes provided in `addNode`.", {
    code: "INVALID_ARGUMENT",
    hint: "Pass at least one node: addNode({ name: fn }) or addNode([[name, fn]]).",
  });
}

/** The shared handler node of `setNodeDefaults({ errorHandler })` (LangGraph.js's name). */
export const DEFAULT_ERROR_HANDLER = "__default_error_handler__";
const ERROR_HANDLER_PREFIX = "__error_handler__";

/**
 * The declaration with `setNodeDefaults` applied and a node per error handler (a copy: the
 * builder's own stays as added). A failed node is sent to its handler node, which runs next step.
 */
function withNodeDefaults(declaration: GraphDeclaration, defaults: NodeDefaults): GraphDeclaration {
  const hasHandlers =
    defaults.errorHandler !== undefined ||
    [...declaration.nodes.values()].some((decl) => decl.errorHandler !== undefined);
  if (
    defaults.retryPolicy === undefined &&
    defaults.cachePolicy === undefined &&
    defaults.timeout === undefined &&
    !hasHandlers
  )
    return declaration;
  if (defaults.errorHandler && declaration.nodes.has(DEFAULT_ERROR_HANDLER)) {
    throw new GraphValueError(
      `Node name "${DEFAULT_ERROR_HANDLER}" is reserved for the default error handler.`,
      { details: { node: DEFAULT_ERROR_HANDLER }, hint: "Rename the node." },
    );
  }
  const nodes = new Map<string, NodeDeclaration>();
  const handlers = new Map<string, NodeDeclaration>();
  for (const [name, decl] of declaration.nodes) {
    const handler = decl.errorHandler ?? defaults.errorHandler;
    let errorHandlerNode: string | undefined;
    if (handler) {
      errorHandlerNode = decl.errorHandler
        ? `${ERROR_HANDLER_PREFIX}${name}`
        : DEFAULT_ERROR_HANDLER;
      if (!handlers.has(errorHandlerNode)) {
        handlers.set(errorHandlerNode, {
          name: errorHandlerNode,
          action: handlerAction(handler, declaration.nodes),
          subgraph: undefined,
          retryPolicy: defaults.retryPolicy,
          timeout: defaults.timeout,
          // A handler's result depends on the failure, never cached.
          cachePolicy: undefined,
          ends: undefined,
        });
      }
    }
    nodes.set(name, {
      ...decl,
      retryPolicy: decl.retryPolicy ?? defaults.retryPolicy,
      cachePolicy: decl.cachePolicy ?? defaults.cachePolicy,
      timeout: decl.timeout ?? defaults.timeout,
      errorHandlerNode,
    });
  }
  for (const [name, handler] of handlers) nodes.set(name, handler);
  return { ...declaration, nodes };
}

/** What a failed node sends its handler node (kept plain: it may be checkpointed). */
interface FailurePayload {
  node: string;
  input: unknown;
  error: unknown;
  message: string;
  errorName: string;
}

function handlerAction(
  handler: ErrorHandler,
  nodes: ReadonlyMap<string, NodeDeclaration>,
): NodeAction<never> {
  const run = (payload: FailurePayload, config: RunConfig) => {
    // A shared handler serves nodes of different input schemas: it sees the failed node's input.
    const inputKeys = nodes.get(payload.node)?.inputKeys;
    const input = inputKeys ? pickKeys(payload.input, inputKeys) : payload.input;
    // After a checkpoint round trip the Error is a plain object: rebuild one with its text.
    const error =
      payload.error instanceof Error
        ? payload.error
        : Object.assign(new Error(payload.message), { name: payload.errorName });
    return handler(input as never, new NodeError(payload.node, error), config);
  };
  return run as unknown as NodeAction<never>;
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
  private nodeDefaults: NodeDefaults = {};
  /**
   * The zod object or `StateSchema` the state was defined with, as LangGraph.js's builder keeps
   * it (read as `graph.builder._schemaRuntimeDefinition`); undefined for Annotation states.
   */
  readonly _schemaRuntimeDefinition: object | undefined;

  /**
   * `state` is any state form LangGraph.js accepts: `Annotation.Root({...})`, a `StateSchema`, a
   * plain object of annotations, `{ stateSchema | state, input?, output? }` or the legacy
   * `{ channels }`; `options` may give `{ input, output }` schemas.
   */
  constructor(state: StateGraphInit<S>, options?: StateGraphOptions) {
    const resolved = resolveSchemas(state, options);
    this._schemaRuntimeDefinition = runtimeDefinitionOf(state);
    recordSchemaSources(this, { state, options });
    this.declaration = {
      schema: resolved.channels,
      nodes: new Map(),
      edges: [],
      joins: [],
      branches: [],
      outputKeys: resolved.outputKeys,
      inputKeys: resolved.inputKeys,
      validateInput: resolved.validateInput,
      validateContext: resolved.validateContext,
    };
  }

  /** Adds a node: a function `(state, config) => update` or a compiled graph (a subgraph). */
  addNode(name: string, node: GraphNode<S>, options?: AddNodeOptions): this;
  /** Adds several nodes at once: `{ name: fn, … }`. */
  addNode(nodes: Record<string, GraphNode<S>>): this;
  /** Adds several nodes at once: `[[name, fn, options?], …]`. */
  addNode(nodes: Array<[string, GraphNode<S>, AddNodeOptions?]>): this;
  addNode(
    nameOrNodes:
      | string
      | Record<string, GraphNode<S>>
      | Array<[string, GraphNode<S>, AddNodeOptions?]>,
    node?: GraphNode<S>,
    options: AddNodeOptions = {},
  ): this {
    if (Array.isArray(nameOrNodes)) {
      if (nameOrNodes.length === 0) throw noNodes();
      for (const [name, each, eachOptions] of nameOrNodes) this.addNode(name, each, eachOptions);
      return this;
    }
    if (typeof nameOrNodes !== "string") {
      if (Object.keys(nameOrNodes).length === 0) throw noNodes();
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
    let action = subgraph ? undefined : (node as NodeAction<never>);
    let inputKeys: string[] | undefined;
    if (action && options.input !== undefined)
      ({ action, inputKeys } = withNodeInput(this.declaration, options.input, action));
    this.declaration.nodes.set(name, {
      name,
      action,
      subgraph,
      retryPolicy: options.retryPolicy,
      cachePolicy: options.cachePolicy,
      timeout: options.timeout,
      errorHandler: options.errorHandler,
      ends: options.ends,
      defer: options.defer,
      invokes: options.subgraphs?.[0],
      inputKeys,
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

  /**
   * Policies every node gets unless it has its own (whenever the nodes were added); several
   * calls merge, the later winning per field. Subgraphs keep their own.
   *
   * @example
   * builder.setNodeDefaults({ retryPolicy: { maxAttempts: 3 }, cachePolicy: { ttl: 60 } });
   */
  setNodeDefaults(defaults: NodeDefaults): this {
    this.assertOpen();
    this.nodeDefaults = { ...this.nodeDefaults, ...defaults };
    return this;
  }

  /** The nodes as added (their own policies, without `setNodeDefaults`'). */
  get nodes(): Record<string, NodePolicies> {
    const out: Record<string, NodePolicies> = {};
    for (const [name, decl] of this.declaration.nodes)
      out[name] = { retryPolicy: decl.retryPolicy, cachePolicy: decl.cachePolicy };
    return out;
  }

  /** Checks the graph (every problem at once) and makes it runnable. */
  compile(options: CompileOptions = {}): CompiledStateGraph<StateType<S>, UpdateType<S>> {
    const names = [...this.declaration.nodes.keys()];
    const before = options.interruptBefore === "*" ? names : (options.interruptBefore ?? []);
    const after = options.interruptAfter === "*" ? names : (options.interruptAfter ?? []);
    const declaration = withNodeDefaults(this.declaration, this.nodeDefaults);
    validateGraph(declaration, { before, after });
    this.compiled = true;
    const compiled = new CompiledStateGraph<StateType<S>, UpdateType<S>>(declaration, {
      cache: options.cache,
      checkpointer: options.checkpointer,
      interruptBefore: before,
      interruptAfter: after,
      name: options.name ?? "LangGraph",
      store: options.store,
      builder: this,
    });
    recordSchemaSources(compiled, schemaSourcesOf(this));
    return compiled;
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

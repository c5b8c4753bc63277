/**
 * Runs parity programs against both libraries and compares what they produced. A program returns
 * plain data describing everything a user could observe (results, errors, snapshots, stream
 * chunks); the harness scrubs the few values that are random by design (interrupt ids, checkpoint
 * ids) and asserts that Keel's data equals LangGraph.js's.
 */
import type { CompiledGraphLike, GraphApi, RunConfig, StateSnapshotLike } from "./api.js";

export type Program = (api: GraphApi) => Promise<unknown>;

/** Runs a program and makes its result plain JSON, failing loudly with the library's name. */
export async function runOn(api: GraphApi, program: Program): Promise<unknown> {
  try {
    return toPlain(await program(api));
  } catch (error) {
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new Error(`program failed unexpectedly on ${api.label}: ${detail}`, { cause: error });
  }
}

/** JSON round trip, with interrupt ids replaced: they are hashes of checkpoint-specific paths. */
export function toPlain(value: unknown): unknown {
  if (value === undefined) return { undefined: true };
  return scrubInterruptIds(JSON.parse(JSON.stringify(value)));
}

const interruptKeys = new Set(["__interrupt__", "interrupts"]);

function scrubInterruptIds(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) {
    return value.map((item) => {
      const scrubbed = scrubInterruptIds(item);
      if (key !== undefined && interruptKeys.has(key) && isRecord(scrubbed)) {
        return { ...scrubbed, id: typeof scrubbed.id === "string" ? "<id>" : scrubbed.id };
      }
      return scrubbed;
    });
  }
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([entryKey, entry]) => [
        entryKey,
        scrubInterruptIds(entry, entryKey),
      ]),
    );
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What an error looks like to a user: its name, which exported class it is, optionally its text. */
export function describeError(api: GraphApi, error: unknown, withMessage = false): unknown {
  if (!(error instanceof Error)) return { thrownNonError: String(error) };
  return {
    name: error.name,
    isGraphRecursionError: error instanceof api.GraphRecursionError,
    isInvalidUpdateError: error instanceof api.InvalidUpdateError,
    ...(withMessage ? { message: error.message } : {}),
  };
}

/** `{ ok: result }` or `{ error: … }`, so that programs can record expected failures as data. */
export async function outcome(
  api: GraphApi,
  run: () => Promise<unknown>,
  withMessage = false,
): Promise<unknown> {
  try {
    return { ok: await run() };
  } catch (error) {
    return { error: describeError(api, error, withMessage) };
  }
}

/** Every chunk a stream yields, in order. */
export async function collectStream(
  graph: CompiledGraphLike,
  input: unknown,
  config?: RunConfig,
): Promise<unknown[]> {
  const chunks: unknown[] = [];
  for await (const chunk of await graph.stream(input, config)) chunks.push(chunk);
  return chunks;
}

/** The parts of a state snapshot that matter to users; ids only as "is there one". */
export function snapshotView(snapshot: StateSnapshotLike): unknown {
  return {
    values: snapshot.values,
    next: [...snapshot.next],
    step: snapshot.metadata?.step,
    source: snapshot.metadata?.source,
    tasks: snapshot.tasks.map((task) => ({ name: task.name, interrupts: task.interrupts })),
    threadId: snapshot.config.configurable?.thread_id,
    hasCheckpointId: typeof snapshot.config.configurable?.checkpoint_id === "string",
    hasParent: typeof snapshot.parentConfig?.configurable?.checkpoint_id === "string",
    hasCreatedAt: typeof snapshot.createdAt === "string",
  };
}

/** Newest-first history, and whether each entry's parent is the entry after it. */
export async function historyView(graph: CompiledGraphLike, config: RunConfig): Promise<unknown> {
  const history: StateSnapshotLike[] = [];
  for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
  const parentsLinked = history.map((snapshot, index) => {
    const parentId = snapshot.parentConfig?.configurable?.checkpoint_id;
    const olderId = history[index + 1]?.config.configurable?.checkpoint_id;
    return parentId === olderId;
  });
  return { entries: history.map(snapshotView), parentsLinked };
}

/** A thread config; each program uses its own thread ids on its own checkpointer. */
export function thread(id: string): RunConfig {
  return { configurable: { thread_id: id } };
}

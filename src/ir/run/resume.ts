import { KeelError } from "../../core/index.js";
import { Command } from "../../graph/index.js";
import type { MigrateBlock } from "../models/index.js";
import type { CompiledDocument } from "./compile.js";
import { type IrRunState, timedOut } from "./run-state.js";

/**
 * Resumes an interrupted run of a compiled document on `threadId` with `value` as the answer.
 * The run's checkpoint records the graph hash it started with; when the document has changed
 * since, resuming is refused (`IR_GRAPH_CHANGED`) unless the document's `migrate` entries lead
 * from the old hash to the new one.
 *
 * @example
 * await resumeDocument(compiled, "thread-1", { approved: true });
 */
export async function resumeDocument(
  compiled: CompiledDocument,
  threadId: string,
  value: unknown,
  options: RespondOptions = {},
): Promise<Record<string, unknown>> {
  const config = { configurable: { thread_id: threadId } };
  const snapshot = (await compiled.graph.getState(config)) as { values?: { __ir?: IrRunState } };
  const started = snapshot.values?.__ir?.graph_hash;
  if (started === undefined) {
    throw new KeelError(
      "CHECKPOINT_NOT_FOUND",
      `No run of ${compiled.document.id} on thread "${threadId}".`,
      {
        details: { thread: threadId },
        hint: "Start the run first, or check the thread id.",
      },
    );
  }
  assertMigratable(started, compiled.graphHash, compiled.document.migrate);
  await assertMayRespond(compiled, threadId, options);
  return compiled.graph.invoke(new Command({ resume: value }), {
    recursionLimit: compiled.recursionLimit,
    ...config,
  });
}

/** Who answers an interrupt: the capabilities they hold (omitted: a trusted in-process caller). */
export interface RespondOptions {
  capabilities?: readonly string[];
}

/**
 * The interrupt's `requested_capability` gate (seed 000: the capability that may respond):
 * throws `CAPABILITY_MISSING` when `capabilities` is given and lacks it. A wait past its
 * deadline is over and takes `on_timeout` whatever the answer, so it needs no capability.
 */
export async function assertMayRespond(
  compiled: CompiledDocument,
  threadId: string,
  options: RespondOptions,
): Promise<void> {
  if (options.capabilities === undefined) return;
  const pending = await pendingInterrupt(compiled, threadId);
  const required = pending?.requestedCapability ?? null;
  if (!pending || required === null || timedOut(pending)) return;
  if (options.capabilities.includes(required)) return;
  throw new KeelError(
    "CAPABILITY_MISSING",
    `Answering the interrupt of ${pending.node} (rule ${pending.rule}) requires the capability "${required}".`,
    {
      details: { thread: threadId, required, held: [...options.capabilities] },
      hint: `Answer as someone holding it: add --capability ${required}.`,
    },
  );
}

/** The interrupt a run waits at: where it was raised, what it asks, and when it times out. */
export interface PendingInterrupt {
  /** The node after which the interrupt was raised. */
  node: string;
  rule: string;
  prompt: string;
  /** When the wait ends (ms since the epoch), or null for no timeout. */
  deadline: number | null;
  /** What happens at the deadline: `halt` or `goto:<node>`. */
  onTimeout: string;
  /** The capability an answer needs (`requested_capability`), or null. */
  requestedCapability: string | null;
}

/**
 * The interrupt action a run of `compiled` on `threadId` waits at, read from its latest
 * checkpoint; null when it waits at none. `timedOut(pending, now)` says whether its deadline has
 * passed: resuming such a run (any answer, or none) takes its `on_timeout`.
 *
 * @example
 * const pending = await pendingInterrupt(compiled, "thread-1");
 * if (pending && timedOut(pending)) await resumeDocument(compiled, "thread-1", null);
 */
export async function pendingInterrupt(
  compiled: CompiledDocument,
  threadId: string,
): Promise<PendingInterrupt | null> {
  const snapshot = (await compiled.graph.getState({ configurable: { thread_id: threadId } })) as {
    values?: { __ir?: IrRunState };
    next?: readonly string[];
  };
  const pending = snapshot.values?.__ir?.pending;
  if (!pending) return null;
  return {
    node: pending.from,
    rule: pending.rule,
    prompt: pending.action.prompt,
    deadline: pending.deadline,
    onTimeout: pending.action.on_timeout,
    requestedCapability: pending.action.requested_capability,
  };
}

/** Throws `IR_GRAPH_CHANGED` unless `from` equals `to` or `migrate` entries chain from one to the other. */
export function assertMigratable(from: string, to: string, migrate: readonly MigrateBlock[]): void {
  const seen = new Set<string>([from]);
  let frontier = [from];
  while (frontier.length > 0) {
    if (frontier.includes(to)) return;
    frontier = migrate
      .filter((m) => frontier.includes(m.from_hash) && !seen.has(m.to_hash))
      .map((m) => m.to_hash);
    for (const hash of frontier) seen.add(hash);
  }
  throw new KeelError(
    "IR_GRAPH_CHANGED",
    `The run started on graph ${from.slice(0, 12)}…; the document is now ${to.slice(0, 12)}….`,
    {
      details: { from_hash: from, to_hash: to },
      hint: `Resume with the document the run started with, or add {"from_hash":"${from}","to_hash":"${to}"} to its migrate list.`,
    },
  );
}

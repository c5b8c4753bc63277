import type { SavedTaskOutcome } from "./checkpointing.js";
import type { GraphSpec } from "./spec.js";
import type { Task } from "./task.js";

/**
 * Matches the first step of a resumed run against the pending writes of the checkpoint it
 * resumes: interrupted tasks get their earlier resume values and the new one
 * (`Command({ resume })`); with `reuseWrites`, tasks that finished take their saved writes instead
 * of running again (a resume on a past checkpoint runs them again, as LangGraph.js does).
 */
export function reuseSavedWrites(
  spec: GraphSpec,
  tasks: Task[],
  saved: Map<string, SavedTaskOutcome>,
  resume: { value: unknown } | undefined,
  reuseWrites: boolean,
): void {
  const byId = resumeById(resume, saved);
  // A resume on a checkpoint that has no pending interrupt (e.g. one `updateState` made on a
  // paused subgraph) answers the next interrupt() instead, as LangGraph.js's null resume does.
  const unclaimed = resume !== undefined && !byId && !hasInterrupts(saved);
  for (const task of tasks) {
    const outcome = saved.get(task.taskId);
    if (!outcome) {
      if (unclaimed) task.fresh = { value: resume.value };
      continue;
    }
    task.resumes = outcome.resumes.slice();
    if (outcome.memo !== undefined) task.memo = { ...outcome.memo };
    if (reuseWrites && outcome.succeeded) {
      task.cached = true;
      task.update = loadSavedWrites(spec, task, outcome);
    } else if (outcome.interrupts && resume) {
      const pendingId = outcome.interrupts[0]?.id;
      if (!byId) task.fresh = { value: resume.value };
      else if (pendingId !== undefined && Object.hasOwn(byId, pendingId))
        task.fresh = { value: byId[pendingId] };
    }
  }
}

/** Puts a finished task's saved writes on `task`; returns its state update (as the node returned it). */
export function loadSavedWrites(
  spec: GraphSpec,
  task: Task,
  outcome: SavedTaskOutcome,
): Record<string, unknown> {
  for (const [channel, value] of outcome.writes) {
    const index = spec.channelIndex.get(channel);
    if (index === undefined) continue;
    task.writeChannels.push(index);
    task.writeValues.push(value);
  }
  return stateWrites(spec, task);
}

/**
 * A task's state writes as one object; a key written more than once holds `{ $writes: [...] }`
 * (LangGraph.js's form of a task result in `tasks`/`debug` chunks and history).
 */
export function stateWrites(spec: GraphSpec, task: Task): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const stateKeyCount = spec.stateKeys.length;
  for (let i = 0; i < task.writeChannels.length; i += 1) {
    const channel = task.writeChannels[i]!;
    if (channel >= stateKeyCount) continue;
    const key = spec.stateKeys[channel]!;
    const value = task.writeValues[i];
    if (!Object.hasOwn(result, key)) result[key] = value;
    else {
      const earlier = result[key] as { $writes?: unknown[] } | undefined;
      result[key] = { $writes: [...(isMultiple(earlier) ? earlier.$writes : [earlier]), value] };
    }
  }
  return result;
}

function isMultiple(value: unknown): value is { $writes: unknown[] } {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as { $writes?: unknown }).$writes)
  );
}

function hasInterrupts(saved: Map<string, SavedTaskOutcome>): boolean {
  for (const outcome of saved.values()) if (outcome.interrupts?.length) return true;
  return false;
}

/** A resume given as `{ [interruptId]: value }` for the pending interrupts, else undefined. */
function resumeById(
  resume: { value: unknown } | undefined,
  saved: Map<string, SavedTaskOutcome>,
): Record<string, unknown> | undefined {
  const value = resume?.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const ids = new Set<string>();
  for (const outcome of saved.values())
    for (const item of outcome.interrupts ?? []) ids.add(item.id);
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => ids.has(key))
    ? (value as Record<string, unknown>)
    : undefined;
}

import type { SavedTaskOutcome } from "./checkpointing.js";
import type { GraphSpec } from "./spec.js";
import type { Task } from "./task.js";

/**
 * Matches the first step of a resumed run against the pending writes of the checkpoint it
 * resumes: tasks that finished reuse their writes instead of running again; interrupted tasks get
 * their earlier resume values and the new one (`Command({ resume })`).
 */
export function reuseSavedWrites(
  spec: GraphSpec,
  tasks: Task[],
  saved: Map<string, SavedTaskOutcome>,
  resume: { value: unknown } | undefined,
): void {
  const byId = resumeById(resume, saved);
  for (const task of tasks) {
    const outcome = saved.get(task.taskId);
    if (!outcome) continue;
    task.resumes = outcome.resumes.slice();
    if (outcome.succeeded && outcome.writes.length > 0) {
      task.cached = true;
      const update: Record<string, unknown> = {};
      for (const [channel, value] of outcome.writes) {
        const index = spec.channelIndex.get(channel);
        if (index === undefined) continue;
        task.writeChannels.push(index);
        task.writeValues.push(value);
        if (index < spec.stateKeys.length) update[channel] = value;
      }
      task.update = update;
    } else if (outcome.interrupts && resume) {
      const pendingId = outcome.interrupts[0]?.id;
      if (!byId) task.fresh = { value: resume.value };
      else if (pendingId !== undefined && Object.hasOwn(byId, pendingId))
        task.fresh = { value: byId[pendingId] };
    }
  }
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

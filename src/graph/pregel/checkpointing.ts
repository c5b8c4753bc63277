import type {
  Checkpoint,
  CheckpointMetadata,
  CheckpointPendingWrite,
  PendingWrite,
} from "../../checkpoint/base/index.js";
import { CHECKPOINT_FORMAT_VERSION, isoNow, newCheckpointId } from "../../checkpoint/base/index.js";
import type { Channel, JoinBarrier } from "../channels/index.js";
import {
  DONE_WRITE,
  ERROR_WRITE,
  INTERRUPT_WRITE,
  MEMO_WRITE,
  NO_WRITES,
  RESUME_WRITE,
  START,
} from "../constants.js";
import type { Interrupt } from "../errors.js";
import { ensureWrittenMessageIds } from "../messages/messages-reducer.js";
import { ChannelKind, type GraphSpec } from "./spec.js";
import type { Task } from "./task.js";

/** The channel state a checkpoint is made of, kept by the run between saves. */
export interface ChannelState {
  channels: Channel[];
  versions: number[];
  versionsSeen: Record<string, Record<string, number>>;
  /** The channels holding a value, ascending (see `RunState.held`). */
  readonly held: readonly number[];
}

/**
 * A checkpoint of the run. Values are shared, not copied: the saver serialises them.
 *
 * Only channels that hold a value are listed (with their versions): triggering is decided by
 * which trigger channels hold a value, so an empty channel's version is never needed again, and
 * a long chain's checkpoints stay small. `versions_seen` records the nodes of the step that made
 * the checkpoint (the trigger versions they consumed); the object is made fresh each step.
 * `parentId` (the checkpoint the run continues from) keeps the new id after it, whatever the clock.
 */
export function makeCheckpoint(
  spec: GraphSpec,
  state: ChannelState,
  parentId?: string,
): Checkpoint {
  const values: Record<string, unknown> = {};
  const versions: Record<string, number> = {};
  const { channels, held } = state;
  for (let k = 0; k < held.length; k += 1) {
    const i = held[k]!;
    const name = spec.channelNames[i]!;
    versions[name] = state.versions[i]!;
    values[name] = channels[i]!.snapshot();
  }
  return {
    v: CHECKPOINT_FORMAT_VERSION,
    id: newCheckpointId(parentId || undefined),
    ts: isoNow(),
    channel_values: values,
    channel_versions: versions,
    versions_seen: state.versionsSeen,
  };
}

/** Loads a checkpoint into fresh channels; returns the node indices it leaves pending. */
export function restoreChannels(
  spec: GraphSpec,
  checkpoint: Checkpoint,
  state: ChannelState,
): number[] {
  for (const name in checkpoint.channel_versions) {
    const index = spec.channelIndex.get(name);
    if (index !== undefined) state.versions[index] = checkpoint.channel_versions[name]!;
  }
  for (const name in checkpoint.channel_values) {
    const index = spec.channelIndex.get(name);
    // A channel the graph no longer has (it was edited since) is dropped, as LangGraph.js does.
    if (index !== undefined) state.channels[index]!.restore(checkpoint.channel_values[name]);
  }
  state.versionsSeen = {};
  const pending = new Set<number>();
  for (let i = 0; i < state.channels.length; i += 1) {
    const kind = spec.channelKinds[i];
    const channel = state.channels[i]!;
    if (kind === ChannelKind.Trigger && channel.has()) pending.add(spec.channelTarget[i]!);
    if (kind === ChannelKind.Join && (channel as JoinBarrier).isComplete())
      pending.add(spec.channelTarget[i]!);
  }
  return [...pending].sort((a, b) => a - b);
}

/** The pending writes a task leaves for the checkpoint it started from. */
export function taskPendingWrites(spec: GraphSpec, task: Task): PendingWrite[] {
  if (task.interrupts) {
    const writes: PendingWrite[] = [[INTERRUPT_WRITE, task.interrupts]];
    if (task.resumes.length > 0) writes.push([RESUME_WRITE, task.resumes]);
    if (task.memo !== undefined) writes.push([MEMO_WRITE, task.memo]);
    return writes;
  }
  if (task.failed) {
    const error = task.error as { name?: string; message?: string } | undefined;
    return [
      [
        ERROR_WRITE,
        { name: error?.name ?? "Error", message: error?.message ?? String(task.error) },
      ],
    ];
  }
  const writes: PendingWrite[] = [];
  for (let i = 0; i < task.writeChannels.length; i += 1) {
    const channel = task.writeChannels[i]!;
    if (spec.messageKeys[channel] === true) ensureWrittenMessageIds(task.writeValues[i]);
    writes.push([spec.channelNames[channel]!, task.writeValues[i]]);
  }
  // A task that paused before and now finished is marked done; its interrupt stays for history.
  if (task.resumes.length > 0) writes.push([RESUME_WRITE, task.resumes], [DONE_WRITE, true]);
  // Saved as an ordinary write: a finished task always leaves a record (as LangGraph.js does).
  else if (writes.length === 0) writes.push([NO_WRITES, null]);
  return writes;
}

/** What a checkpoint's pending writes say about one task. */
export interface SavedTaskOutcome {
  interrupts: Interrupt[] | undefined;
  resumes: unknown[];
  /** Functional-API task results of an interrupted entrypoint. */
  memo?: Record<string, unknown>;
  error: unknown;
  writes: Array<[string, unknown]>;
  /** True when the task finished (its writes can be reused instead of running it again). */
  succeeded: boolean;
  /** True when the task finished after being interrupted and resumed. */
  done: boolean;
}

/** Groups a checkpoint's pending writes by task id. */
export function groupPendingWrites(
  pending: CheckpointPendingWrite[],
): Map<string, SavedTaskOutcome> {
  const byTask = new Map<string, SavedTaskOutcome>();
  for (const [taskId, channel, value] of pending) {
    let outcome = byTask.get(taskId);
    if (!outcome) {
      outcome = {
        interrupts: undefined,
        resumes: [],
        error: undefined,
        writes: [],
        succeeded: true,
        done: false,
      };
      byTask.set(taskId, outcome);
    }
    if (channel === DONE_WRITE) {
      outcome.done = true;
    } else if (channel === NO_WRITES) {
      // The task's record exists: it finished, with nothing to reuse.
    } else if (channel === INTERRUPT_WRITE) {
      outcome.interrupts = value as Interrupt[];
    } else if (channel === MEMO_WRITE) {
      outcome.memo = value as Record<string, unknown>;
    } else if (channel === RESUME_WRITE) {
      outcome.resumes = value as unknown[];
    } else if (channel === ERROR_WRITE) {
      outcome.error = value;
    } else {
      outcome.writes.push([channel, value]);
    }
  }
  for (const outcome of byTask.values())
    outcome.succeeded =
      (outcome.interrupts === undefined || outcome.done) && outcome.error === undefined;
  return byTask;
}

/**
 * The input a checkpoint still has to apply (START's task is due), or undefined: an `input`
 * checkpoint's, or a `__copy__` of one (a `fork` that carries the input in `metadata.writes`).
 */
export function dueInput(metadata: CheckpointMetadata): { value: unknown } | undefined {
  if (metadata.source !== "input" && metadata.source !== "fork") return undefined;
  const writes = metadata.writes as Record<string, unknown> | null | undefined;
  if (metadata.source === "fork" && (!writes || !Object.hasOwn(writes, START))) return undefined;
  return { value: writes?.[START] };
}

/** The id of START's task on a checkpoint whose input is due (as snapshots list it). */
export function startTaskId(checkpointId: string): string {
  return `${checkpointId}:start`;
}

import { nextChannelVersion } from "../../checkpoint/base/index.js";
import type { Channel, JoinBarrier } from "../channels/index.js";
import { ChannelKind, type GraphSpec } from "./spec.js";
import type { Task } from "./task.js";

/** The parts of a run that applying a step's writes changes. */
export interface StepState {
  readonly spec: GraphSpec;
  readonly channels: Channel[];
  readonly versions: number[];
  versionsSeen: Record<string, Record<string, number>>;
  /** Per channel: the stamp of the last apply that wrote it (a second write in one apply conflicts). */
  readonly writtenAt: Int32Array;
  /** Per channel: the stamp of the last apply that changed it (dedupes `updated`). */
  readonly updatedAt: Int32Array;
  /**
   * Channels changed by the last apply: `updated[0 … updatedCount - 1]` (a count, not a
   * shortened array: `length = 0` is a call into V8's runtime, at every step).
   */
  readonly updated: number[];
  updatedCount: number;
  /** True when the last apply changed a state key (what `values` streams). */
  stateUpdated: boolean;
  stamp: number;
  readonly checkpointing: boolean;
  /** The saver's own `getNextVersion`, when it has one (checkpointed runs only). */
  readonly nextVersion: ((current: number | undefined) => number) | undefined;
  markPending(node: number): void;
  invalidateView(): void;
  noteUpdated(channel: number): void;
}

/**
 * Ends a super-step: the triggers of the tasks that ran are consumed, then every write is applied
 * per channel in task order, then the nodes whose triggers are now set become pending.
 * Work is proportional to the writes made, not to the size of the graph. `consumeSends` drops the
 * pending Sends even when no Send runs (a hand-made update).
 */
export function applyTasks(state: StepState, tasks: Task[], consumeSends = false): void {
  const stamp = ++state.stamp;
  const { channels, spec, writtenAt } = state;
  const updated = state.updated;
  state.updatedCount = 0;

  if (state.checkpointing) state.versionsSeen = {};
  let hadPush = false;
  for (const task of tasks) {
    if (task.kind === "push") {
      hadPush = true;
      continue;
    }
    const node = task.node;
    if (node.index < 0) continue;
    if (state.checkpointing) {
      const seen: Record<string, number> = {};
      for (const trigger of node.triggers)
        seen[spec.channelNames[trigger]!] = state.versions[trigger]!;
      state.versionsSeen[node.name] = seen;
    }
    for (const trigger of node.triggers)
      if (channels[trigger]!.consume()) touch(state, stamp, trigger);
  }
  if ((hadPush || consumeSends) && channels[spec.sendsChannel]!.consume())
    touch(state, stamp, spec.sendsChannel);

  // Writes apply in LangGraph.js's order: nodes by name, then Sends in the order they were made.
  const ordered = tasks.length > 1 ? [...tasks].sort(byWriteOrder) : tasks;
  for (const task of ordered) {
    const writer = task.node.name;
    const targets = task.writeChannels;
    const values = task.writeValues;
    for (let i = 0; i < targets.length; i += 1) {
      const channel = targets[i]!;
      const first = writtenAt[channel] !== stamp;
      writtenAt[channel] = stamp;
      channels[channel]!.write(values[i], first, writer);
      touch(state, stamp, channel);
    }
  }

  const stateKeyCount = spec.stateKeys.length;
  let stateChanged = false;
  for (let k = 0; k < state.updatedCount; k += 1) {
    const channel = updated[k]!;
    // With a checkpointer, versions carry a random fraction so that two branches of one thread
    // (a fork) never give the same channel the same version (savers store values by version).
    state.versions[channel] = state.checkpointing
      ? state.nextVersion
        ? state.nextVersion(state.versions[channel])
        : nextChannelVersion(state.versions[channel])
      : state.versions[channel]! + 1;
    state.noteUpdated(channel);
    if (channel < stateKeyCount) {
      stateChanged = true;
      continue;
    }
    const kind = spec.channelKinds[channel];
    if (kind === ChannelKind.Trigger) {
      if (channels[channel]!.has()) state.markPending(spec.channelTarget[channel]!);
    } else if (kind === ChannelKind.Join) {
      if ((channels[channel] as JoinBarrier).isComplete())
        state.markPending(spec.channelTarget[channel]!);
    }
  }
  state.stateUpdated = stateChanged;
  if (stateChanged) state.invalidateView();
}

function byWriteOrder(a: Task, b: Task): number {
  if (a.kind !== b.kind) return a.kind === "pull" ? -1 : 1;
  return a.kind === "pull" ? a.node.index - b.node.index : a.pushIndex - b.pushIndex;
}

/** Records that `channel` changed in the apply with this stamp (once). */
function touch(state: StepState, stamp: number, channel: number): void {
  if (state.updatedAt[channel] !== stamp) {
    state.updatedAt[channel] = stamp;
    state.updated[state.updatedCount++] = channel;
  }
}

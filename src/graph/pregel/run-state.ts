import type { Checkpoint } from "../../checkpoint/base/index.js";
import type { Channel } from "../channels/index.js";
import type { QueuedSend } from "../channels/send-queue.js";
import type { StepState } from "./apply.js";
import { restoreChannels } from "./checkpointing.js";
import { IndexSet } from "./index-set.js";
import type { GraphSpec } from "./spec.js";
import { Task } from "./task.js";
import { type NodeTimeout, timeoutPolicyOf } from "./timeout.js";

/**
 * The mutable state of one run: the channels, their versions, the nodes triggered for the next
 * step, and the bookkeeping `applyTasks` uses. Fixed-size typed arrays, allocated once per run,
 * so a step allocates only its tasks and the values the nodes return.
 */
export class RunState implements StepState {
  readonly spec: GraphSpec;
  readonly channels: Channel[];
  readonly versions: number[];
  versionsSeen: Record<string, Record<string, number>> = {};
  readonly pending: number[] = [];
  readonly pendingFlags: Uint8Array;
  readonly writtenAt: Int32Array;
  readonly updatedAt: Int32Array;
  readonly updated: number[] = [];
  updatedCount = 0;
  stateUpdated = false;
  stamp = 0;
  /** Step of the latest state (the last applied step, or the checkpoint loaded). */
  step = -1;
  /** Channels changed since the last checkpoint (kept only when checkpointing). */
  readonly dirty: IndexSet | undefined;
  /**
   * The channels holding a value, ascending (kept only when checkpointing): what a checkpoint
   * lists, without asking every channel of the graph at every step. Presence changes only where
   * a channel changes (an apply's updated channels, a restore), and is re-read there.
   */
  readonly held: number[] = [];
  private readonly heldFlags: Uint8Array;
  /** The saver's own `getNextVersion` (see `customNextVersion`), set by the run that has one. */
  nextVersion: ((current: number | undefined) => number) | undefined = undefined;
  private view: Record<string, unknown> | undefined;

  constructor(
    spec: GraphSpec,
    readonly checkpointing: boolean,
  ) {
    this.spec = spec;
    this.channels = spec.createChannels();
    const count = this.channels.length;
    this.versions = new Array<number>(count).fill(0);
    this.writtenAt = new Int32Array(count);
    this.updatedAt = new Int32Array(count);
    this.pendingFlags = new Uint8Array(spec.nodes.length);
    this.dirty = checkpointing ? new IndexSet(count) : undefined;
    this.heldFlags = new Uint8Array(checkpointing ? count : 0);
    // Channels with a default start at version 1, so every stored value has a version.
    for (let i = 0; i < count; i += 1) if (this.channels[i]!.has()) this.versions[i] = 1;
    this.readHeld();
  }

  /** True when `channel` holds a value (checkpointed runs only; see `held`). */
  holds(channel: number): boolean {
    return this.heldFlags[channel] === 1;
  }

  /** Rebuilds `held` from every channel. */
  private readHeld(): void {
    if (!this.checkpointing) return;
    const { held, heldFlags, channels } = this;
    while (held.length > 0) held.pop();
    for (let i = 0; i < channels.length; i += 1) {
      const has = channels[i]!.has();
      heldFlags[i] = has ? 1 : 0;
      if (has) held.push(i);
    }
  }

  /** The state at the start of the current step (rebuilt only after a state key changed). */
  stateView(): Record<string, unknown> {
    if (this.view) return this.view;
    const view: Record<string, unknown> = {};
    const { stateKeys } = this.spec;
    for (let i = 0; i < stateKeys.length; i += 1) {
      const channel = this.channels[i]!;
      if (channel.has()) view[stateKeys[i]!] = channel.get();
    }
    this.view = view;
    return view;
  }

  invalidateView(): void {
    this.view = undefined;
  }

  markPending(node: number): void {
    if (this.pendingFlags[node] === 0) {
      this.pendingFlags[node] = 1;
      this.pending.push(node);
    }
  }

  noteUpdated(channel: number): void {
    if (!this.checkpointing) return;
    this.dirty!.add(channel);
    const has = this.channels[channel]!.has();
    if (has === (this.heldFlags[channel] === 1)) return;
    this.heldFlags[channel] = has ? 1 : 0;
    const held = this.held;
    if (has) {
      // Inserted in order: a step changes few channels, and `held` is short.
      let at = held.length;
      held.push(channel);
      while (at > 0 && held[at - 1]! > channel) {
        held[at] = held[at - 1]!;
        at -= 1;
      }
      held[at] = channel;
      return;
    }
    let at = held.indexOf(channel);
    for (; at < held.length - 1; at += 1) held[at] = held[at + 1]!;
    held.pop();
  }

  /** Loads a checkpoint's channels and marks the nodes it leaves triggered. */
  restoreCheckpoint(checkpoint: Checkpoint, step: number): void {
    for (const node of restoreChannels(this.spec, checkpoint, this)) this.markPending(node);
    this.readHeld();
    this.step = step;
    this.invalidateView();
  }

  /**
   * The tasks of the next step, in the order they start, as LangGraph.js: `Send`s in the order
   * they were made, then pull tasks by node name (writes still apply pull tasks first). Clears the triggered set, unless
   * `peek` (to describe the next step without taking it).
   */
  prepareTasks(idSource: { checkpointId: string; ns: string; step: number }, peek = false): Task[] {
    const tasks: Task[] = [];
    const pending = this.pending;
    const { nodes } = this.spec;
    if (pending.length > 1) pending.sort((a, b) => a - b);
    // Deferred nodes stay triggered (pending) while other tasks are due.
    const hold = this.spec.hasDeferred && this.holdsDeferred();
    const sends = this.channels[this.spec.sendsChannel]!;
    if (sends.has()) {
      const queued = sends.get() as QueuedSend[];
      for (let i = 0; i < queued.length; i += 1) {
        const send = queued[i]!;
        const node = nodes[this.spec.nodeIndex.get(send.node)!]!;
        const task = new Task(node, "push", i, send.args, idSource);
        if (send.timeout !== undefined) task.timeout = timeoutPolicyOf(send.timeout as NodeTimeout);
        tasks.push(task);
      }
    }
    if (pending.length > 0) {
      const view = this.stateView();
      let kept = 0;
      for (const index of pending) {
        const node = nodes[index]!;
        if (hold && node.defer) {
          if (!peek) pending[kept++] = index;
          continue;
        }
        if (!peek) this.pendingFlags[index] = 0;
        tasks.push(new Task(node, "pull", 0, view, idSource));
      }
      // Popped, not `length = kept` (a call into V8's runtime, at every step).
      if (!peek) while (pending.length > kept) pending.pop();
    }
    return tasks;
  }

  /** True when a non-deferred node or a Send is due, so the deferred nodes wait. */
  private holdsDeferred(): boolean {
    const { nodes } = this.spec;
    return (
      this.pending.some((index) => !nodes[index]!.defer) ||
      this.channels[this.spec.sendsChannel]!.has()
    );
  }
}

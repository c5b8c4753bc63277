import type {
  BaseCheckpointSaver,
  Checkpoint,
  CheckpointMetadata,
  CheckpointTuple,
} from "../../checkpoint/base/index.js";
import { DeltaChannel, type DeltaEngineChannel, DeltaSnapshot } from "../channels/public/delta.js";
import { deltaMaxSuperstepsSinceSnapshot } from "../channels/public/delta-storage.js";
import type { RunState } from "./run-state.js";
import type { DeltaKey, GraphSpec } from "./spec.js";

/** `[updates, supersteps]` since a delta key's last snapshot, per key (LangGraph.js's metadata). */
export type DeltaCounters = Record<string, [number, number]>;

/** The metadata key LangGraph.js keeps the counters under. */
const COUNTERS = "counters_since_delta_snapshot";

/**
 * LangGraph.js's storage of a graph's `DeltaChannel` keys, for savers other than Keel's SQL
 * savers: a checkpoint leaves such a key out of `channel_values` (its value is the nearest
 * ancestor's snapshot plus the pending writes saved since, which the saver already holds), and
 * stores it as a `DeltaSnapshot` every `snapshotFrequency` updates, every
 * `LANGGRAPH_DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT` supersteps, after an `Overwrite` or several
 * writes in one step (applied in node order, which a replay in task-id order would not keep;
 * LangGraph.js applies them in task-id order instead), and whenever
 * the key changed by something not saved as a task's pending writes of the parent checkpoint
 * (an update, a Command's update, a fork or copy, `exit` durability, a run started over the
 * pending writes of a paused or failed step): a reader replaying the parent's writes would not
 * find it. One per run, only for graphs with delta keys.
 */
export class DeltaSaves {
  private counters: DeltaCounters = {};
  /** Set when a delta key may have changed by a write the parent's pending writes do not hold. */
  unrecorded = false;

  constructor(private readonly keys: readonly DeltaKey[]) {}

  /** Continues from a loaded checkpoint (its counters). */
  adopt(metadata: CheckpointMetadata): void {
    const saved = (metadata as Record<string, unknown>)[COUNTERS];
    this.counters = {};
    if (typeof saved !== "object" || saved === null) return;
    for (const [name, pair] of Object.entries(saved)) {
      if (Array.isArray(pair) && pair.length === 2)
        this.counters[name] = [Number(pair[0]) || 0, Number(pair[1]) || 0];
    }
  }

  /**
   * Turns the checkpoint about to be put into the delta format: each delta key holding a value is
   * left out, or stored as a `DeltaSnapshot`; either way listed in `newVersions`, so a saver
   * storing changed channels only stores what this checkpoint says. `recorded` is false when the step's writes are not the
   * parent's pending writes (see the class comment). Sets or clears the metadata's counters.
   */
  apply(
    state: RunState,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: Record<string, number>,
    recorded: boolean,
  ): void {
    const snapshotAll = !recorded || this.unrecorded;
    const bound = snapshotAll ? 0 : deltaMaxSuperstepsSinceSnapshot();
    const next: DeltaCounters = {};
    let counted = false;
    const values = checkpoint.channel_values;
    for (const key of this.keys) {
      const channel = state.channels[key.index] as DeltaEngineChannel;
      const unsafe = channel.takeReplayUnsafe();
      if (!channel.has()) continue;
      const [updates, supersteps] = this.counters[key.name] ?? [0, 0];
      const counter: [number, number] = [
        state.dirty?.has(key.index) === true ? updates + 1 : updates,
        supersteps + 1,
      ];
      if (snapshotAll || unsafe || counter[0] >= key.snapshotFrequency || counter[1] >= bound) {
        values[key.name] = new DeltaSnapshot(channel.get());
        newVersions[key.name] = state.versions[key.index]!;
        continue;
      }
      // Listed as changed even when it is not: a saver storing changed channels only would
      // otherwise show the parent's snapshot here (the same value, but not LangGraph's layout).
      delete values[key.name];
      newVersions[key.name] = state.versions[key.index]!;
      next[key.name] = counter;
      counted = true;
    }
    this.counters = next;
    this.unrecorded = false;
    const record = metadata as Record<string, unknown>;
    if (counted) record[COUNTERS] = next;
    else delete record[COUNTERS];
  }
}

/**
 * Fills in the values of `tuple`'s delta keys that its checkpoint leaves out (saved in the delta
 * format), rebuilt from the saver: the nearest stored value and the writes saved since, replayed
 * in order. Undefined when there is nothing to rebuild (a graph without delta keys: no await).
 */
export function fillDeltaValues(
  spec: GraphSpec,
  saver: BaseCheckpointSaver | undefined,
  tuple: CheckpointTuple | undefined,
): Promise<void> | undefined {
  if (spec.deltaKeys.length === 0 || saver === undefined || tuple === undefined) return undefined;
  const { channel_values: values, channel_versions: versions } = tuple.checkpoint;
  const absent = spec.deltaKeys.filter(
    (key) => Object.hasOwn(versions, key.name) && !Object.hasOwn(values, key.name),
  );
  // A saver written for an older LangGraph may not have the walk: the key starts empty then.
  if (absent.length === 0 || typeof saver.getDeltaChannelHistory !== "function") return undefined;
  return rebuild(spec, saver, tuple, absent);
}

async function rebuild(
  spec: GraphSpec,
  saver: BaseCheckpointSaver,
  tuple: CheckpointTuple,
  absent: DeltaKey[],
): Promise<void> {
  const histories = await saver.getDeltaChannelHistory({
    config: tuple.config,
    channels: absent.map((key) => key.name),
  });
  for (const key of absent) {
    const declared = spec.stateChannels[key.index];
    const history = histories[key.name];
    if (!(declared instanceof DeltaChannel) || history === undefined) continue;
    const channel = declared.fromCheckpoint(history.seed);
    channel.replayWrites(history.writes);
    tuple.checkpoint.channel_values[key.name] = channel.value;
  }
}

import {
  type BaseCheckpointSaver,
  type Checkpoint,
  type CheckpointConfig,
  isoNow,
  newCheckpointId,
} from "../../../checkpoint/base/index.js";
import type { BaseChannel } from "./base-channel.js";
import { DeltaChannel, DeltaSnapshot } from "./delta.js";

/**
 * LangGraph.js's storage of a {@link DeltaChannel} for a saver that keeps whole checkpoints:
 * a checkpoint carries the channel only as a {@link DeltaSnapshot} now and then, and a reader
 * rebuilds it from the nearest snapshot and the writes saved since. These helpers are that
 * format's building blocks, as LangGraph.js exports them (Keel's engine saves a graph's delta keys
 * this way itself, see `pregel/delta-saves.ts`).
 */

/** Supersteps after which a delta channel snapshots even if it was written less often. */
export function deltaMaxSuperstepsSinceSnapshot(): number {
  const raw =
    typeof process === "undefined"
      ? undefined
      : process.env.LANGGRAPH_DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT;
  const parsed = raw === undefined || raw === "" ? Number.NaN : Number.parseInt(raw, 10);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : 5000;
}

/**
 * The delta channels that must be stored as a snapshot now: those holding a value whose
 * `[updates, supersteps]` since their last snapshot reached `snapshotFrequency` or
 * {@link deltaMaxSuperstepsSinceSnapshot}. With `channelVersions`, a channel without a version
 * (never written on this branch) is skipped.
 *
 * @example
 * deltaChannelsToSnapshot({ messages }, { messages: [1000, 3] }); // Set { "messages" }
 */
export function deltaChannelsToSnapshot(
  channels: Record<string, BaseChannel>,
  counters: Record<string, readonly [number, number] | undefined>,
  channelVersions?: Record<string, unknown>,
): Set<string> {
  const out = new Set<string>();
  const bound = deltaMaxSuperstepsSinceSnapshot();
  for (const [name, channel] of Object.entries(channels)) {
    if (!(channel instanceof DeltaChannel) || !channel.isAvailable()) continue;
    if (channelVersions !== undefined && channelVersions[name] === undefined) continue;
    const [updates, supersteps] = counters[name] ?? [0, 0];
    if (updates >= channel.snapshotFrequency || supersteps >= bound) out.add(name);
  }
  return out;
}

/**
 * A new checkpoint after `checkpoint` holding `channels`' values: a delta channel is left out,
 * unless named in `channelsToSnapshot`, where it is stored as a {@link DeltaSnapshot}; a channel
 * without a value is left out too. (`_step` is LangGraph.js's argument for its id; Keel's ids
 * are time-ordered already.)
 *
 * @example
 * const next = createCheckpoint(previous, channels, step, { channelsToSnapshot: new Set(["messages"]) });
 */
export function createCheckpoint(
  checkpoint: Checkpoint,
  channels: Record<string, BaseChannel>,
  _step: number,
  options: { channelsToSnapshot?: ReadonlySet<string>; id?: string } = {},
): Checkpoint {
  const snapshot = options.channelsToSnapshot ?? new Set<string>();
  const values: Record<string, unknown> = {};
  for (const [name, channel] of Object.entries(channels)) {
    if (snapshot.has(name)) {
      if (channel.isAvailable()) values[name] = new DeltaSnapshot(channel.get());
      continue;
    }
    if (channel instanceof DeltaChannel || !channel.isAvailable()) continue;
    const value = channel.checkpoint();
    if (value !== undefined) values[name] = value;
  }
  return {
    v: checkpoint.v,
    id: options.id ?? newCheckpointId(checkpoint.id),
    ts: isoNow(),
    channel_values: values,
    channel_versions: { ...checkpoint.channel_versions },
    versions_seen: Object.fromEntries(
      Object.entries(checkpoint.versions_seen).map(([node, seen]) => [node, { ...seen }]),
    ),
  };
}

/**
 * `specs`' channels as `checkpoint` holds them; a delta channel the checkpoint leaves out is
 * rebuilt from the saver: its nearest stored value and the writes saved since, replayed in order.
 *
 * @example
 * const channels = await channelsFromCheckpoint(specs, tuple.checkpoint, { saver, config: tuple.config });
 */
export async function channelsFromCheckpoint<Specs extends Record<string, BaseChannel>>(
  specs: Specs,
  checkpoint: Checkpoint,
  options: { saver?: BaseCheckpointSaver; config?: CheckpointConfig } = {},
): Promise<Specs> {
  const channels: Record<string, BaseChannel> = {};
  const absent: string[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    const has = Object.hasOwn(checkpoint.channel_values, name);
    channels[name] = spec.fromCheckpoint(has ? checkpoint.channel_values[name] : undefined);
    if (!has && spec instanceof DeltaChannel) absent.push(name);
  }
  const { saver, config } = options;
  if (absent.length > 0 && saver !== undefined && config !== undefined) {
    const histories = await saver.getDeltaChannelHistory({ config, channels: absent });
    for (const name of absent) {
      const history = histories[name];
      if (history === undefined) continue;
      const channel = specs[name]!.fromCheckpoint(history.seed) as DeltaChannel;
      channel.replayWrites(history.writes);
      channels[name] = channel;
    }
  }
  return channels as Specs;
}

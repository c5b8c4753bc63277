import type { CheckpointPendingWrite, DeltaChannelHistory } from "./types.js";

/** What the delta-history walk reads of one ancestor checkpoint. */
export interface DeltaAncestor {
  /** Its pending writes in `(taskId, index)` order (others than the asked channels' are skipped). */
  readonly writes: readonly CheckpointPendingWrite[];
  /** Its stored value of `channel`, or `NO_STORED_VALUE` when it stores none there. */
  valueOf(channel: string): unknown;
}

/** What {@link DeltaAncestor.valueOf} answers for a channel the ancestor does not store. */
export const NO_STORED_VALUE: unique symbol = Symbol("keel.noStoredValue");

/**
 * The walk behind `getDeltaChannelHistory`: from the nearest ancestor back, each asked channel
 * collects the ancestors' writes until one stores its value (the seed); writes come out oldest
 * first. Savers differ only in how they read an ancestor, so each passes its own sequence.
 *
 * @example
 * const histories = await collectDeltaHistory(["messages"], ancestorsOf(config));
 * // histories.messages: { seed, writes: [[taskId, "messages", value], …] }
 */
export async function collectDeltaHistory(
  channels: readonly string[],
  ancestors: AsyncIterable<DeltaAncestor> | Iterable<DeltaAncestor>,
): Promise<Record<string, DeltaChannelHistory>> {
  const out: Record<string, DeltaChannelHistory> = {};
  for (const channel of channels) out[channel] = { writes: [] };
  const remaining = new Set(channels);
  if (remaining.size > 0) {
    for await (const ancestor of ancestors) {
      // Collected newest first (each ancestor's block reversed), turned around at the end.
      for (let i = ancestor.writes.length - 1; i >= 0; i -= 1) {
        const write = ancestor.writes[i] as CheckpointPendingWrite;
        if (remaining.has(write[1])) out[write[1]]?.writes.push(write);
      }
      for (const channel of [...remaining]) {
        const value = ancestor.valueOf(channel);
        if (value === NO_STORED_VALUE) continue;
        (out[channel] as DeltaChannelHistory).seed = value;
        remaining.delete(channel);
      }
      if (remaining.size === 0) break;
    }
  }
  for (const channel of channels) out[channel]?.writes.reverse();
  return out;
}

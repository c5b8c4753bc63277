import { KeelError } from "../../core/index.js";
import { newCheckpointId } from "./checkpoint-id.js";
import { isoNow } from "./timestamp.js";
import type { Checkpoint, CheckpointConfig } from "./types.js";

/** The checkpoint format this Keel writes (the `v` field). Savers refuse newer ones. */
export const CHECKPOINT_FORMAT_VERSION = 1;

/**
 * Channels with a fixed meaning in pending writes. Their writes are stored under a negative
 * index so that they never collide with a task's ordinary writes (index 0, 1, …) and so that a
 * later save of the same kind replaces the earlier one (a task that errs again, a new resume value).
 */
export const SPECIAL_WRITE_INDEX: Readonly<Record<string, number>> = {
  __error__: -1,
  __interrupt__: -2,
  __resume__: -3,
  __memo__: -4,
};

/** The storage index of the `position`-th write of a task to `channel`. */
export function writeIndex(channel: string, position: number): number {
  // A switch, not a lookup in SPECIAL_WRITE_INDEX: called for every write, with every channel
  // name of the graph (a keyed lookup with that many names is slow, and "__proto__" is a key).
  switch (channel) {
    case "__error__":
      return -1;
    case "__interrupt__":
      return -2;
    case "__resume__":
      return -3;
    case "__memo__":
      return -4;
    default:
      return position;
  }
}

/** A checkpoint with no channels, the start of every thread. */
export function emptyCheckpoint(): Checkpoint {
  return {
    v: CHECKPOINT_FORMAT_VERSION,
    id: newCheckpointId(),
    ts: isoNow(),
    channel_values: {},
    channel_versions: {},
    versions_seen: {},
  };
}

/**
 * A copy of a checkpoint whose maps can be changed without touching the original. Channel values
 * themselves are shared: the engine never mutates a value in place, it replaces it.
 */
export function copyCheckpoint(checkpoint: Checkpoint): Checkpoint {
  const versionsSeen: Record<string, Record<string, number>> = {};
  for (const node in checkpoint.versions_seen) {
    versionsSeen[node] = { ...checkpoint.versions_seen[node] };
  }
  return {
    v: checkpoint.v,
    id: checkpoint.id,
    ts: checkpoint.ts,
    channel_values: { ...checkpoint.channel_values },
    channel_versions: { ...checkpoint.channel_versions },
    versions_seen: versionsSeen,
  };
}

/** Refuses a checkpoint written in a newer format than this Keel understands. */
export function assertCheckpointFormat(checkpoint: Pick<Checkpoint, "v" | "id">): void {
  if (checkpoint.v > CHECKPOINT_FORMAT_VERSION) {
    throw new KeelError(
      "CHECKPOINT_FORMAT",
      `Checkpoint ${checkpoint.id} has format ${checkpoint.v}; this Keel reads up to format ${CHECKPOINT_FORMAT_VERSION}.`,
      {
        details: { checkpointId: checkpoint.id, format: checkpoint.v },
        hint: "Upgrade Keel to resume this thread.",
      },
    );
  }
}

/** The thread id of a config, or a clear error when it is missing. */
export function requireThreadId(config: CheckpointConfig, action: string): string {
  const threadId = config.configurable?.thread_id;
  if (typeof threadId !== "string" || threadId === "") {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `Cannot ${action}: the config has no "configurable.thread_id".`,
      {
        hint: 'Pass a thread id, e.g. graph.invoke(input, { configurable: { thread_id: "t1" } }).',
      },
    );
  }
  return threadId;
}

/** The checkpoint namespace of a config (`""` for the root graph). */
export function namespaceOf(config: CheckpointConfig): string {
  const ns = config.configurable?.checkpoint_ns;
  return typeof ns === "string" ? ns : "";
}

/** The checkpoint id a config points at, if any. */
export function checkpointIdOf(config: CheckpointConfig | undefined): string | undefined {
  const id = config?.configurable?.checkpoint_id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** True when every key of `filter` equals (===, or by JSON text for objects) the metadata's. */
export function matchesFilter(
  metadata: Record<string, unknown>,
  filter: Record<string, unknown> | undefined,
): boolean {
  if (!filter) return true;
  for (const key in filter) {
    const want = filter[key];
    const have = metadata[key];
    if (want === have) continue;
    if (typeof want === "object" && want !== null && JSON.stringify(want) === JSON.stringify(have))
      continue;
    return false;
  }
  return true;
}

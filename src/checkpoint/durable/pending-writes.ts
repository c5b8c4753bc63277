import { KeelError } from "../../core/index.js";
import type { CheckpointPendingWrite, Serializer } from "../base/index.js";
import { valueHashOf } from "./blob-codec.js";
import { readWritesAndChildren } from "./queries.js";
import type { CheckpointRow, Place, WriteRow } from "./rows.js";
import type { SqlRunner } from "./sql-runner.js";
import { parseRow } from "./value-map.js";

/**
 * The pending writes of a checkpoint: the rows of `state_checkpoint_writes` saved against it, and
 * the writes folded into the rows of its children (committed with them; see `value-map.ts`).
 * `children` is given when the caller already holds every child row (a full history listing);
 * otherwise both are read in one query.
 */
export async function readPendingWrites(
  db: SqlRunner,
  serde: Serializer,
  place: Place,
  checkpointId: string,
  children?: readonly CheckpointRow[],
): Promise<CheckpointPendingWrite[]> {
  const read = await readWritesAndChildren(db, place, checkpointId, children === undefined);
  return mergeWrites(serde, read.writes, children ?? read.children);
}

type Keyed = { taskId: string; idx: number; channel: string; value: unknown };

function mergeWrites(
  serde: Serializer,
  rows: readonly WriteRow[],
  children: readonly CheckpointRow[],
): CheckpointPendingWrite[] {
  if (rows.length === 0 && children.length === 0) return [];
  const byKey = new Map<string, Keyed>();
  for (const row of rows) {
    byKey.set(`${row.taskId}\u0000${row.idx}`, {
      taskId: row.taskId,
      idx: row.idx,
      channel: row.channel,
      value: decodeWrite(serde, row),
    });
  }
  for (const child of children) {
    const inline = parseRow(child).map.w;
    if (!inline) continue;
    for (const [taskId, idx, channel, text] of inline) {
      const key = `${taskId}\u0000${idx}`;
      // An ordinary write saved twice keeps the first; a special write replaces.
      if (idx >= 0 && byKey.has(key)) continue;
      byKey.set(key, { taskId, idx, channel, value: loadWrite(serde, child, taskId, text) });
    }
  }
  return [...byKey.values()]
    .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.idx - b.idx))
    .map((w) => [w.taskId, w.channel, w.value]);
}

function decodeWrite(serde: Serializer, write: WriteRow): unknown {
  if (valueHashOf(write.valueJson) !== write.valueHash) {
    throw corruptWrite(write.threadId, write.checkpointId, write.taskId);
  }
  return serde.loads(write.valueJson ?? "null");
}

function loadWrite(
  serde: Serializer,
  child: CheckpointRow,
  taskId: string,
  text: string | null,
): unknown {
  try {
    return serde.loads(text ?? "null");
  } catch (cause) {
    if (cause instanceof KeelError) throw cause;
    throw corruptWrite(child.threadId, child.parentId ?? "", taskId, cause);
  }
}

function corruptWrite(
  threadId: string,
  checkpointId: string,
  taskId: string,
  cause?: unknown,
): KeelError {
  return new KeelError(
    "CHECKPOINT_CORRUPT",
    `Checkpoint ${checkpointId} of thread "${threadId}" has a corrupted pending write of task ${taskId} (${cause === undefined ? "its content does not match its hash" : "it is not valid JSON"}).`,
    {
      cause,
      details: { threadId, checkpointId, taskId },
      hint: "Restore the database from a backup, or fork the thread from an earlier checkpoint.",
    },
  );
}

/**
 * Row layout 3: each value written once in a step's row. Layout 2 repeated a changed value up to
 * three times — in the channel's entry, in the pending write that produced it and in
 * `metadata.writes` — and stored `thread_id`, `source`, `step` and the timestamp both in columns
 * (or the id) and in the JSON. Layout 3 leaves out what the row already holds:
 *
 * - a pending write `[task, idx, channel]` without a value: its value is the text of the row's
 *   inline entry for `channel` (it wrote it);
 * - metadata of the engine's own shape (`{source, step, parents: {}, writes, thread_id}`) as
 *   `{node: [task, n]}` (head `"m":1`): each node's update is the object of the first `n` of the
 *   row's writes of its `task`-th task (by first appearance; the engine's own trigger writes
 *   follow the update's), checked text for text when written;
 * - `ts` when it is the time the checkpoint id (UUIDv7) carries.
 *
 * Rows of layout 2 (and earlier compact-less rows of layout 3) read as before.
 */

import { checkpointIdTime } from "../base/checkpoint-id.js";
import {
  type CheckpointMetadata,
  jsonNumber,
  jsonSerde,
  jsonString,
  keyJson,
  type Serializer,
} from "../base/index.js";
import type { CheckpointRow, WriteRow } from "./rows.js";

/** The engine's metadata keys, in the order it makes them. */
const ENGINE_KEYS = ["source", "step", "parents", "writes", "thread_id"] as const;

/**
 * `metadata` as layout 3 stores it when it has the engine's shape and each node's update is
 * the object of one task's `writes` (text for text); undefined otherwise (stored whole).
 */
export function compactMetadata(
  serde: Serializer,
  metadata: CheckpointMetadata,
  row: { threadId: string; step: number; source: string },
  writes: readonly WriteRow[],
): string | undefined {
  let index = 0;
  for (const key in metadata) {
    if (key !== ENGINE_KEYS[index++]) return undefined;
  }
  if (
    index !== ENGINE_KEYS.length ||
    metadata.thread_id !== row.threadId ||
    metadata.step !== row.step ||
    metadata.source !== row.source ||
    !Number.isInteger(row.step) ||
    !isEmptyRecord(metadata.parents)
  )
    return undefined;
  const updates = metadata.writes;
  if (updates === null) return "null";
  if (typeof updates !== "object" || Array.isArray(updates)) return undefined;
  const groups = taskWrites(writes);
  if (groups === undefined) return undefined;
  let text = "{";
  for (const node in updates) {
    const update = updates[node];
    const fast = serde === jsonSerde ? updateRefOf(groups, update) : undefined;
    if (fast === false) return undefined;
    const ref = fast ?? refOf(groups, serde.dumps(update));
    if (ref === undefined) return undefined;
    text += `${text.length === 1 ? "" : ","}${keyJson(node)}:${ref}`;
  }
  return `${text}}`;
}

/**
 * `refOf` with the default serializer, without writing the update's text: its text is `{`, each
 * `"key":value` joined by `,`, `}`, so it is the text of a task's first n writes exactly when
 * their channels are its keys in order and their texts are its values'. A primitive's text is
 * the one JSON writes for it inside an object; any other value's is `dumps` of it, as its write
 * was made (a node's `{ messages: [message] }`: the message's remembered text, checked against
 * its fields, so a message changed since its write no longer matches), and a record holding
 * those texts reads back as the update. `false` when no task's writes match (stored whole),
 * undefined when the update is not such an object (compare its text).
 */
function updateRefOf(
  groups: ReadonlyArray<readonly WriteRow[]>,
  update: unknown,
): string | false | undefined {
  if (typeof update !== "object" || update === null || Array.isArray(update)) return undefined;
  const proto = Object.getPrototypeOf(update);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const record = update as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 0) return undefined;
  const texts = new Array<string>(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    // A key starting with `$` may be the serializer's tag, which changes how the object is written.
    const text = key.charCodeAt(0) === 0x24 /* $ */ ? undefined : valueText(record[key]);
    if (text === undefined) return undefined;
    texts[i] = text;
  }
  for (let task = 0; task < groups.length; task++) {
    const members = groups[task] as readonly WriteRow[];
    if (members.length < keys.length) continue;
    let n = 0;
    while (n < keys.length) {
      const write = members[n] as WriteRow;
      if (write.channel !== keys[n] || (write.valueJson ?? "null") !== texts[n]) break;
      n++;
    }
    if (n === keys.length) return `[${task},${n}]`;
  }
  return false;
}

/**
 * The default serializer's text of a value of an update: a JSON primitive's as `primitiveText`,
 * an object's (a list, a record, a message) as `dumps` writes it; undefined for anything else
 * (`undefined`, a bigint, NaN: compared as the update's text).
 */
function valueText(value: unknown): string | undefined {
  return typeof value === "object" && value !== null
    ? jsonSerde.dumps(value)
    : primitiveText(value);
}

/** The default serializer's text of a JSON primitive; undefined for anything else. */
function primitiveText(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return jsonString(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      return Number.isFinite(value) ? jsonNumber(value) : undefined;
    default:
      return value === null ? "null" : undefined;
  }
}

/**
 * `[task, n]` when `update` is the object of the first n writes of a task: `{`, their
 * `"channel":value` texts joined by `,`, `}`. Compared piece by piece where they stand in
 * `update`, so no text of the writes is built (this runs at every step; the joined texts were
 * about a kilobyte of strings a step, made to be compared once and dropped).
 */
function refOf(groups: ReadonlyArray<readonly WriteRow[]>, update: string): string | undefined {
  if (update.charCodeAt(0) !== 0x7b /* { */) return undefined;
  for (let task = 0; task < groups.length; task++) {
    const members = groups[task] as readonly WriteRow[];
    let at = 1;
    for (let n = 1; n <= members.length; n++) {
      const write = members[n - 1] as WriteRow;
      if (n > 1) {
        if (update.charCodeAt(at) !== 0x2c /* , */) break;
        at += 1;
      }
      const key = keyJson(write.channel);
      if (!update.startsWith(key, at) || update.charCodeAt(at + key.length) !== 0x3a /* : */) break;
      at += key.length + 1;
      const value = write.valueJson ?? "null";
      if (!update.startsWith(value, at)) break;
      at += value.length;
      if (at + 1 === update.length && update.charCodeAt(at) === 0x7d /* } */)
        return `[${task},${n}]`;
    }
  }
  return undefined;
}

/** The metadata of a layout-3 row stored compact: rebuilt from its columns and its writes. */
export function expandMetadata(
  serde: Serializer,
  row: CheckpointRow,
  writes: ReadonlyArray<readonly [string, number, string, string | null]>,
): CheckpointMetadata {
  const refs = JSON.parse(row.metadataJson) as Record<string, [number, number]> | null;
  let updates: Record<string, unknown> | null = null;
  if (refs !== null) {
    const groups = taskWrites(
      writes.map(([taskId, idx, channel, valueJson]) => ({ taskId, idx, channel, valueJson })),
    )?.map((group) => group.map(memberText));
    updates = {};
    for (const node in refs) {
      const [task, n] = refs[node] ?? [];
      const members = groups?.[task ?? -1];
      if (members === undefined || n === undefined || n < 1 || n > members.length)
        throw new Error(`node "${node}" names writes the row does not have`);
      updates[node] = serde.loads(`{${members.slice(0, n).join(",")}}`);
    }
  }
  return {
    source: row.source as CheckpointMetadata["source"],
    step: row.step,
    parents: {},
    writes: updates,
    thread_id: row.threadId,
  };
}

type TaskWrite = Pick<WriteRow, "taskId" | "idx" | "channel" | "valueJson">;

/** Each task's writes, tasks in order of first appearance; undefined when one is special. */
function taskWrites<W extends TaskWrite>(
  writes: readonly W[],
): ReadonlyArray<readonly W[]> | undefined {
  if (oneTask(writes)) return [writes];
  const tasks: string[] = [];
  const groups: W[][] = [];
  for (const write of writes) {
    // A special write (error, interrupt) is no part of a node's update.
    if (write.idx < 0) return undefined;
    let task = tasks.indexOf(write.taskId);
    if (task < 0) {
      task = tasks.push(write.taskId) - 1;
      groups.push([]);
    }
    (groups[task] as W[]).push(write);
  }
  return groups;
}

/** True when the writes are of one task and none is special (a chain step's: no grouping made). */
function oneTask(writes: readonly TaskWrite[]): boolean {
  if (writes.length === 0) return false;
  const taskId = writes[0]?.taskId;
  for (const write of writes) if (write.idx < 0 || write.taskId !== taskId) return false;
  return true;
}

/** A write's `"channel":value` text, as a node's update holds it. */
function memberText(write: TaskWrite): string {
  return `${jsonString(write.channel)}:${write.valueJson ?? "null"}`;
}

function isEmptyRecord(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  for (const _ in value) return false;
  return true;
}

let lastMs = -1;
let lastIso = "";

/** True when `ts` is the time the checkpoint id carries (then layout 3 leaves it out). */
export function tsOfIdIs(id: string, ts: string): boolean {
  return isoOfId(id) === ts;
}

/** The ISO time a UUIDv7 checkpoint id carries, or undefined for another kind of id. */
export function isoOfId(id: string): string | undefined {
  const ms = checkpointIdTime(id);
  if (ms === undefined) return undefined;
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

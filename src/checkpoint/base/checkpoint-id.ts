import { randomFillSync } from "node:crypto";
import { putHexByte, uuidCodes, uuidText } from "./uuid-text.js";

const POOL_SIZE = 8 * 1024;
const pool = new Uint8Array(POOL_SIZE);
let poolOffset = POOL_SIZE;
let lastMs = -1;
let sequence = 0;
/** The id made last. */
let lastId = "";
/** The codes of the next id; its time prefix ("xxxxxxxx-xxxx-") is that of `prefixMs`. */
const codes = uuidCodes();
let prefixMs = -1;

/** The 48-bit time and 12-bit counter of a UUIDv7 id, or undefined for any other id. */
/** The millisecond time a UUIDv7 checkpoint id carries, or undefined for another kind of id. */
export function checkpointIdTime(id: string): number | undefined {
  return positionOf(id)?.ms;
}

function positionOf(id: string): { ms: number; sequence: number } | undefined {
  if (id.length !== 36 || id.charCodeAt(14) !== 0x37 /* "7" */) return undefined;
  const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  const sequence = Number.parseInt(id.slice(15, 18), 16);
  return Number.isFinite(ms) && Number.isFinite(sequence) ? { ms, sequence } : undefined;
}

/**
 * A new checkpoint id: a UUIDv7 whose 12-bit `rand_a` field is a counter (RFC 9562, method 1),
 * so ids made by this process sort in the order they were made even within one millisecond.
 * Random bits come from a pooled `randomFillSync` (one system call per 1,000 ids): a checkpoint is
 * written every super-step, and a fresh random buffer per id was a measurable share of a step.
 *
 * Given `after` (the parent checkpoint's id), the new id sorts after it whatever the clock says:
 * a thread resumed on a machine whose clock is behind the one that wrote the parent still gets
 * children that sort after their parent (savers find "latest" by greatest id). The id then takes
 * the parent's millisecond and the next counter value, and later ids of this process follow it.
 *
 * @example
 * newCheckpointId(); // "019a2f4c-8c1e-7000-9d2b-5f0e8a41c3d7"
 * newCheckpointId(parentId) > parentId; // true, even with a clock that is behind
 */
export function newCheckpointId(after?: string, now: number = Date.now()): string {
  // A chain's parent is usually the id made last here, never ahead of this process: no parse.
  if (after !== undefined && after !== lastId) {
    const floor = positionOf(after);
    // Continue from the parent when it is ahead of what this process has issued.
    if (floor && (floor.ms > lastMs || (floor.ms === lastMs && floor.sequence > sequence))) {
      lastMs = floor.ms;
      sequence = floor.sequence;
    }
  }
  let ms = now;
  if (ms > lastMs) {
    lastMs = ms;
    sequence = 0;
  } else {
    sequence += 1;
    // The counter ran out within one millisecond: borrow the next millisecond.
    if (sequence > 0xfff) {
      lastMs += 1;
      sequence = 0;
    }
    ms = lastMs;
  }
  if (poolOffset + 8 > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const r = poolOffset;
  poolOffset += 8;
  // Steps a few microseconds apart share the millisecond: its digits are written once.
  if (ms !== prefixMs) {
    const high = Math.floor(ms / 0x10000);
    const low = ms % 0x10000;
    putHexByte(codes, 0, high >>> 24);
    putHexByte(codes, 2, high >>> 16);
    putHexByte(codes, 4, high >>> 8);
    putHexByte(codes, 6, high);
    putHexByte(codes, 9, low >>> 8);
    putHexByte(codes, 11, low);
    prefixMs = ms;
  }
  putHexByte(codes, 14, 0x70 | (sequence >>> 8));
  putHexByte(codes, 16, sequence);
  putHexByte(codes, 19, 0x80 | (pool[r]! & 0x3f));
  putHexByte(codes, 21, pool[r + 1]!);
  putHexByte(codes, 24, pool[r + 2]!);
  putHexByte(codes, 26, pool[r + 3]!);
  putHexByte(codes, 28, pool[r + 4]!);
  putHexByte(codes, 30, pool[r + 5]!);
  putHexByte(codes, 32, pool[r + 6]!);
  putHexByte(codes, 34, pool[r + 7]!);
  lastId = uuidText(codes);
  return lastId;
}

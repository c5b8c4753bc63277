/**
 * Where CLIPS 6.30 files a partial match in a hashed beta memory (drive.c BetaMemoryHashValue,
 * symbol.c HashSymbol/HashInteger/HashFloat). Only `matches` needs it: the order a memory lists
 * its partial matches in is bucket by bucket, and no join ever scans across buckets, so the
 * matcher itself hashes its own way.
 */
import type { Value } from "../values.js";
import { ClipsFloat, ClipsString, InstanceName } from "../values.js";

const MASK = (1n << 64n) - 1n;
const SYMBOL_HASH_SIZE = 63559n;
const NUMBER_HASH_SIZE = 8191n;
/** A hashed beta memory's buckets (INITIAL_BETA_HASH_SIZE; CLIPS grows it only when large). */
export const BETA_BUCKETS = 17n;

/** `tally = tally * 127 + byte` over signed bytes, as an unsigned long wraps. */
function tallyBytes(bytes: Iterable<number>): bigint {
  let tally = 0n;
  for (const b of bytes) tally = (tally * 127n + BigInt(b > 127 ? b - 256 : b)) & MASK;
  return tally;
}

/** The hash-table bucket CLIPS keeps with a value (its `bucket` field). */
function valueBucket(v: Value): bigint {
  if (typeof v === "string") return tallyBytes(Buffer.from(v, "utf8")) % SYMBOL_HASH_SIZE;
  if (v instanceof ClipsString) return tallyBytes(Buffer.from(v.value, "utf8")) % SYMBOL_HASH_SIZE;
  if (v instanceof InstanceName) return tallyBytes(Buffer.from(v.name, "utf8")) % SYMBOL_HASH_SIZE;
  if (typeof v === "number") return BigInt(Math.abs(v)) % NUMBER_HASH_SIZE;
  if (v instanceof ClipsFloat) {
    const bytes = Buffer.alloc(8);
    bytes.writeDoubleLE(v.value);
    return tallyBytes(bytes) % NUMBER_HASH_SIZE;
  }
  // Fact and instance addresses hash by their C pointer: nothing to reproduce.
  return 0n;
}

/** The bucket of a partial match whose join hashes `values` (in CLIPS's expression order). */
export function betaBucket(values: readonly Value[]): number {
  let hash = 0n;
  let multiplier = 1n;
  for (const v of values) {
    hash = (hash + valueBucket(v) * multiplier) & MASK;
    multiplier = (multiplier * 509n) & MASK;
  }
  return Number(hash % BETA_BUCKETS);
}

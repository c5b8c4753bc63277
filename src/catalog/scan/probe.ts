import { stat } from "node:fs";
import type { FileStamp } from "../fs/read-file.js";
import type { ScanHead } from "../store/load.js";
import type { Listing } from "./listing.js";
import { unreadable } from "./read-node.js";

/**
 * Stats every claimed file of a listing (null: gone since the walk). The calls run on libuv's
 * thread pool, all at once: the kernel's work spreads over the cores while this thread does
 * other work (`--changed` reads the stored scan's head meanwhile).
 */
export function stampListing(listing: Listing): Promise<Map<string, FileStamp | null>> {
  const stamps = new Map<string, FileStamp | null>();
  return new Promise((resolve) => {
    let left = listing.files.length;
    if (left === 0) resolve(stamps);
    for (const file of listing.files) {
      stat(file.absolutePath, (error, found) => {
        stamps.set(
          file.path,
          error ? null : { modifiedAt: Math.trunc(found.mtimeMs), size: found.size },
        );
        left -= 1;
        if (left === 0) resolve(stamps);
      });
    }
  });
}

/**
 * Whether a `--changed` scan has nothing to re-read: every claimed file is stored with the same
 * stamp (smudged stamps never match), none was added or removed, and the walk ran into the same
 * problems as last time. Then the stored scan stands as it is.
 */
export function nothingChanged(
  listing: Listing,
  stamps: ReadonlyMap<string, FileStamp | null>,
  head: ScanHead,
): boolean {
  if (listing.files.length !== head.stamps.size) return false;
  for (const file of listing.files) {
    const now = stamps.get(file.path);
    const before = head.stamps.get(file.path);
    if (!now || !before || now.modifiedAt !== before.modifiedAt || now.size !== before.size)
      return false;
  }
  const problems = listing.problems
    .map((p) => JSON.stringify(unreadable(p.path, p.reason, p.message)))
    .sort();
  const stored = head.issues
    .filter((i) => i.ruleId === "unreadable-file" && !head.stamps.has(i.nodeIds[0] ?? ""))
    .map((i) => JSON.stringify(i))
    .sort();
  return problems.length === stored.length && problems.every((p, i) => p === stored[i]);
}

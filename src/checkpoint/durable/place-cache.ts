import type { LastWritten } from "./blob-codec.js";
import type { Place } from "./rows.js";

/** What a saver remembers of a place (thread + namespace) it writes, so a step needs no read. */
export interface PlaceState {
  maxSeq: number;
  /**
   * The greatest checkpoint id of the place as far as this saver knows (see `placeNewId`):
   * undefined when the place has no checkpoint, `UNORDERED_ID` when an id not of the canonical
   * UUID form was written or read (the database may order it otherwise than JavaScript).
   */
  maxId: string | undefined;
  latestId: string | undefined;
  /** channel → entry text of `latestId`'s row (see `value-map.ts`). */
  latestEntries: Map<string, string>;
  /** The last blob written per channel: the base of the next delta. */
  lastWritten: Map<string, LastWritten>;
  /**
   * True when `maxSeq` may be below the place's highest seq: another saver may have written the
   * place since it was read (the run went back to a checkpoint by id), or it is the seq of the
   * latest checkpoint `getTuple` read, which a fork's may exceed. The next step reads the
   * database's highest seq first, so two checkpoints of a place never get the same seq.
   */
  stale: boolean;
}

/** `PlaceState.maxId` when an id of the place may sort otherwise in the database than here. */
export const UNORDERED_ID = "\u0000unordered";

/**
 * Lowercase hexadecimal UUIDs (Keel's and LangGraph.js's checkpoint ids) sort the same in
 * JavaScript, in SQLite and under any Postgres collation; other ids may not.
 */
const CANONICAL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `maxId` for an id read from the database as the place's greatest. */
export function knownMaxId(id: string | undefined): string | undefined {
  return id === undefined || CANONICAL_ID.test(id) ? id : UNORDERED_ID;
}

/** The greater of two `maxId`s (unordered wins). */
export function greaterMaxId(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (a === UNORDERED_ID || b === UNORDERED_ID) return UNORDERED_ID;
  return a > b ? a : b;
}

/**
 * Whether a new checkpoint `id` must be marked `is_below_latest` (1), and the place's `maxId`
 * after it. The highest seq of a place is the seq of its greatest id unless a row was written
 * with an id below the greatest (a fork from the past by a process whose clock is behind): such
 * rows are marked, and only they are indexed (migration 032), so the highest seq is two seeks
 * with no index written at every step. A row is left unmarked only when it surely sorts above
 * every id of the place; when in doubt it is marked (a marked row costs one index entry).
 */
export function placeNewId(
  maxId: string | undefined,
  id: string,
): { belowLatest: 0 | 1; maxId: string | undefined } {
  if (maxId === undefined) return { belowLatest: 0, maxId: knownMaxId(id) };
  if (maxId !== UNORDERED_ID && id > maxId && CANONICAL_ID.test(id))
    return { belowLatest: 0, maxId: id };
  return { belowLatest: 1, maxId: greaterMaxId(maxId, knownMaxId(id)) };
}

const MAX_CACHED_PLACES = 1024;

/** The places a saver wrote or read lately, least recently used evicted first. */
export class PlaceCache {
  private readonly places = new Map<string, PlaceState>();
  /** The place asked for last (a run asks for the same one every step): no key to build. */
  private last: { threadId: string; checkpointNs: string; state: PlaceState } | undefined;

  get(place: Place): PlaceState | undefined {
    const last = this.last;
    if (last && last.threadId === place.threadId && last.checkpointNs === place.checkpointNs)
      return last.state;
    const state = this.places.get(placeKey(place));
    if (state) this.last = { threadId: place.threadId, checkpointNs: place.checkpointNs, state };
    return state;
  }

  set(place: Place, state: PlaceState): PlaceState {
    const key = placeKey(place);
    this.last = undefined;
    this.places.delete(key);
    this.places.set(key, state);
    if (this.places.size > MAX_CACHED_PLACES) {
      const oldest = this.places.keys().next().value;
      if (oldest !== undefined) this.places.delete(oldest);
    }
    return state;
  }

  /** Forgets every namespace of the given threads (deleted, or a failed commit touched them). */
  forget(threadIds: readonly string[]): void {
    this.last = undefined;
    const prefixes = threadIds.map((id) => `${id}\u0000`);
    for (const key of [...this.places.keys()]) {
      if (prefixes.some((prefix) => key.startsWith(prefix))) this.places.delete(key);
    }
  }
}

function placeKey(place: Place): string {
  return `${place.threadId}\u0000${place.checkpointNs}`;
}

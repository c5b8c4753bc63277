import type { LastWritten } from "./blob-codec.js";
import type { Place } from "./rows.js";

/** What a saver remembers of a place (thread + namespace) it writes, so a step needs no read. */
export interface PlaceState {
  maxSeq: number;
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

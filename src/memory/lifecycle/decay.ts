import { DAY_MS, round, type TimeInput, toMs } from "./time.js";

/** A semantic record as semantic decay reads it. */
export interface DecayableRecord {
  id: string;
  kind: string;
  status: string;
  /** When the record was written. */
  timestamp: TimeInput;
  /** When it was last returned by a search (overrides `timestamp`). */
  last_hit_at?: TimeInput | null;
  confidence?: number | null;
}

/** One record's decay. */
export interface SemanticDecay {
  id: string;
  /** Rounded to two decimals, as the reference reports it. */
  newConfidence: number;
  /** The unrounded confidence is below the forget threshold. */
  shouldForget: boolean;
}

/** Options of the decay functions. */
export interface DecayOptions {
  /** Confidence lost per idle week (default 0.05). */
  rate?: number;
  /** Below this the record is forgotten (default 0.1). */
  forgetThreshold?: number;
  /** Episodic events older than this many days are archived, then pruned (default 30). */
  ttlDays?: number;
}

/**
 * Semantic decay: a record idle more than 7 whole days loses `rate` per whole idle week
 * (decisions, constraints and assumptions a third of it, drafts double); only active,
 * deprecated and draft records decay; under the threshold it should be forgotten.
 *
 * @example
 * evaluateSemanticDecay([{ id: "p", kind: "proposal", status: "active",
 *   timestamp: "2026-02-21T12:00:00Z", confidence: 1 }], "2026-03-01T12:00:00Z")
 * // [{ id: "p", newConfidence: 0.95, shouldForget: false }]
 */
export function evaluateSemanticDecay(
  records: readonly DecayableRecord[],
  now: TimeInput,
  options: DecayOptions = {},
): SemanticDecay[] {
  const rate = options.rate ?? 0.05;
  const threshold = options.forgetThreshold ?? 0.1;
  const nowMs = toMs(now);
  const out: SemanticDecay[] = [];
  for (const record of records) {
    if (!["active", "deprecated", "draft"].includes(record.status)) continue;
    const effective = ["decision", "constraint", "assumption"].includes(record.kind)
      ? rate / 3
      : record.status === "draft"
        ? rate * 2
        : rate;
    const since = toMs(record.last_hit_at ?? record.timestamp);
    const idleDays = Math.floor((nowMs - since) / DAY_MS);
    if (idleDays <= 7) continue;
    const steps = Math.floor(idleDays / 7);
    const value = Math.max(0, (record.confidence ?? 1) - effective * steps);
    out.push({ id: record.id, newConfidence: round(value, 2), shouldForget: value < threshold });
  }
  return out;
}

/** An episodic event as episodic decay reads it. */
export interface DecayableEvent {
  id: number;
  kind: string;
  status: string;
  /** The record the event is linked to as evidence, if any. */
  linked_id: string | null;
  timestamp: TimeInput;
}

/** The fate of a batch of episodic events. */
export interface EpisodicDecay {
  toArchive: number[];
  toPrune: number[];
  /** Events kept for good: linked to a record, or of kind decision or constraint. */
  retainedCount: number;
}

/**
 * Episodic decay: linked events and decision/constraint events are kept; others older than the
 * TTL (30 days) are archived when active and pruned when already archived.
 *
 * @example
 * evaluateEpisodicDecay(events, Date.now()).toArchive
 */
export function evaluateEpisodicDecay(
  events: readonly DecayableEvent[],
  now: TimeInput,
  options: DecayOptions = {},
): EpisodicDecay {
  const ttlMs = (options.ttlDays ?? 30) * DAY_MS;
  const nowMs = toMs(now);
  const result: EpisodicDecay = { toArchive: [], toPrune: [], retainedCount: 0 };
  for (const event of events) {
    if (event.linked_id || event.kind === "decision" || event.kind === "constraint") {
      result.retainedCount++;
      continue;
    }
    if (nowMs - toMs(event.timestamp) > ttlMs) {
      (event.status === "active" ? result.toArchive : result.toPrune).push(event.id);
    }
  }
  return result;
}

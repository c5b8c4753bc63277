import type { AutonomyLevel, PipelineStage } from "../contracts/enums.js";
import type { DbAutonomyLevel } from "./tables.js";

/**
 * The database keeps seed 004's kebab-case lowercase enum values; the wire keeps seed 003's.
 * These convert at the boundary: `tool_call` ⇄ `tool-call`, `A2` ⇄ `a2`.
 */
export function stageToDb(stage: PipelineStage): string {
  return stage === "tool_call" ? "tool-call" : stage.replaceAll("_", "-");
}

export function stageFromDb(value: string): PipelineStage {
  return value.replaceAll("-", "_") as PipelineStage;
}

export function autonomyToDb(level: AutonomyLevel): DbAutonomyLevel {
  return level.toLowerCase() as DbAutonomyLevel;
}

export function autonomyFromDb(value: string): AutonomyLevel {
  return value.toUpperCase() as AutonomyLevel;
}

// The last two conversions: a ledgered call formats each of its two instants twice (its audit
// event's timestamp, then its row's created_at or resolved_at), and a Date costs ~0.5 µs.
let lastMs = Number.NaN;
let lastIso = "";
let priorMs = Number.NaN;
let priorIso = "";

/** Unix milliseconds → the seed's ISO 8601 UTC timestamp. */
export function isoFromMs(ms: number): string {
  if (ms === lastMs) return lastIso;
  if (ms === priorMs) return priorIso;
  const iso = new Date(ms).toISOString();
  priorMs = lastMs;
  priorIso = lastIso;
  lastMs = ms;
  lastIso = iso;
  return iso;
}

/** The seed's ISO 8601 timestamp → Unix milliseconds. */
export function msFromIso(iso: string): number {
  return Date.parse(iso);
}

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

// The five levels looked up, not case-converted: each ledgered call converts four times.
const AUTONOMY_TO_DB: Readonly<Record<string, DbAutonomyLevel>> = {
  A0: "a0",
  A1: "a1",
  A2: "a2",
  A3: "a3",
  A4: "a4",
};
const AUTONOMY_FROM_DB: Readonly<Record<string, AutonomyLevel>> = {
  a0: "A0",
  a1: "A1",
  a2: "A2",
  a3: "A3",
  a4: "A4",
};

export function autonomyToDb(level: AutonomyLevel): DbAutonomyLevel {
  return AUTONOMY_TO_DB[level] ?? (level.toLowerCase() as DbAutonomyLevel);
}

export function autonomyFromDb(value: string): AutonomyLevel {
  return AUTONOMY_FROM_DB[value] ?? (value.toUpperCase() as AutonomyLevel);
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

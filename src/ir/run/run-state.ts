import type { EngineSnapshot } from "../../rules/index.js";
import type { InterruptAction } from "../models/index.js";
import type { Mirror } from "./facts.js";

/** The run's bookkeeping, kept in the graph state beside the user's fields. */
export interface IrRunState {
  graph_hash: string;
  rules: EngineSnapshot | null;
  mirror: Mirror;
  /** The interrupt waiting for an answer, with the node that raised it. */
  pending: { from: string; rule: string; action: InterruptAction; deadline: number | null } | null;
}

/** True when an interrupt's deadline has passed at `now` (the wait node uses the same test). */
export function timedOut(pending: { deadline: number | null }, now = Date.now()): boolean {
  return pending.deadline !== null && now > pending.deadline;
}

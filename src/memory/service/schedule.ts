import { pause } from "../../core/index.js";
import type { DecisionMemory } from "./decision-memory.js";
import type { MaintenanceReport } from "./maintain.js";

/** How the maintenance schedule runs. */
export interface MaintenanceScheduleOptions {
  /** Time between the end of one pass and the start of the next. */
  everyMs: number;
  /** Aborting ends the schedule (a pass in progress finishes first). */
  signal: AbortSignal;
  /** Wait before the first pass (default 0: one pass as the schedule starts). */
  firstDelayMs?: number;
  onPass?: (report: MaintenanceReport, elapsedMs: number) => void;
  /** A failed pass is reported here and the schedule goes on (default: ignored). */
  onError?: (error: unknown) => void;
}

/**
 * Runs the memory's maintenance pass on a schedule until `signal` is aborted; resolves with
 * the number of passes run. `keel worker` runs it beside the job loops. Passes are safe to run
 * from several workers at once: each writes absolute values computed from the records' own
 * times (a week of decay is never counted twice), so concurrent passes agree.
 *
 * @example
 * const stop = new AbortController();
 * const done = runMaintenanceSchedule(memory, { everyMs: 6 * 3_600_000, signal: stop.signal });
 */
export async function runMaintenanceSchedule(
  memory: DecisionMemory,
  options: MaintenanceScheduleOptions,
): Promise<number> {
  let passes = 0;
  let wait = options.firstDelayMs ?? 0;
  while (!options.signal.aborted) {
    if (wait > 0) await pause(wait, options.signal);
    if (options.signal.aborted) break;
    const started = Date.now();
    try {
      const report = await memory.maintain();
      passes++;
      options.onPass?.(report, Date.now() - started);
    } catch (error) {
      options.onError?.(error);
    }
    wait = Math.max(1, options.everyMs);
  }
  return passes;
}

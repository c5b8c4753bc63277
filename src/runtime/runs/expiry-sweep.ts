import type { RunRecord } from "../../checkpoint/index.js";
import type { Approval } from "../contracts/approval.js";
import type { GovernedGraph } from "./governed-runtime.js";

/** What a sweep needs from the runtime (`GovernedRuntime.expireDue`). */
export interface ExpiringRuntime {
  expireDue(graphFor: (run: RunRecord) => GovernedGraph | undefined): Promise<Approval[]>;
}

/** Options of `startExpirySweep`. */
export interface ExpirySweepOptions {
  /** The graph that resumes a run whose approval expired (its step then fails). */
  graphFor: (run: RunRecord) => GovernedGraph | undefined;
  /** Milliseconds between sweeps; 30 s by default. */
  everyMs?: number;
  /** Receives what each sweep expired (only when it expired something). */
  onExpired?: (approvals: Approval[]) => void;
  /** Receives a sweep's error; the sweep keeps running. Ignored by default. */
  onError?: (error: unknown) => void;
}

/** A running sweep. */
export interface ExpirySweep {
  /** Runs one sweep now (waiting for one already running); what it expired. */
  sweepNow(): Promise<Approval[]>;
  /** Stops the timer and waits for a sweep in flight. */
  stop(): Promise<void>;
}

/**
 * Expires pending approvals past their time on a timer, so a run waiting for a decision nobody
 * makes fails its step with `APPROVAL_EXPIRED` without anyone reading the approval. Sweeps never
 * overlap; the timer does not keep the process alive.
 *
 * @example
 * const sweep = startExpirySweep(runtime, { graphFor: () => graph, everyMs: 10_000 });
 * // … on shutdown:
 * await sweep.stop();
 */
export function startExpirySweep(
  runtime: ExpiringRuntime,
  options: ExpirySweepOptions,
): ExpirySweep {
  let running: Promise<Approval[]> | undefined;
  const sweepNow = (): Promise<Approval[]> => {
    running ??= runtime.expireDue(options.graphFor).finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => {
    if (running) return;
    sweepNow().then(
      (expired) => {
        if (expired.length > 0) options.onExpired?.(expired);
      },
      (error: unknown) => options.onError?.(error),
    );
  }, options.everyMs ?? 30_000);
  timer.unref();
  return {
    sweepNow,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}

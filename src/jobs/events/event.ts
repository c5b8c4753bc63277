/** The canonical job events (job-events.md, "Event catalog"). */
export type JobEventType =
  | "run.started"
  | "run.reap.started"
  | "run.reap.completed"
  | "job.claimed"
  | "job.skipped"
  | "job.spawning"
  | "model.delta"
  | "job.callback.received"
  | "job.completed"
  | "job.failed"
  | "run.summary"
  | "emitter.error";

/** One event in the spec's envelope: every field present, `jobId` null for run-level events. */
export interface JobEvent {
  readonly type: JobEventType;
  readonly timestamp: number;
  readonly runId: string;
  readonly jobId: string | null;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Where events go (the ndjson writer, the human progress line, a test's array). */
export type JobEventSink = (event: JobEvent) => void;

/**
 * A sink writing one JSON line per event through `write` (each call one complete line, so a
 * stream consumer sees it at once). An event that cannot be serialised becomes the spec's
 * `emitter.error` event instead of failing the run.
 */
export function ndjsonSink(write: (line: string) => void): JobEventSink {
  return (event) => {
    let line: string;
    try {
      line = JSON.stringify(event);
    } catch (error) {
      line = JSON.stringify({
        type: "emitter.error",
        timestamp: Date.now(),
        runId: event.runId,
        jobId: null,
        data: {
          message: `failed to emit event of type '${event.type}': ${(error as Error).message}`,
        },
      });
    }
    write(`${line}\n`);
  };
}

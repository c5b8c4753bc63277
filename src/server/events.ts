/**
 * One event on the server's channel (`GET /api/events` over SSE, `/ws` over WebSocket): run
 * steps, approvals, job events, scan changes. The envelope is the spec's job-events one
 * (`type`, `timestamp`, `runId`, `jobId`, `data`), plus `at` (the same instant, ISO 8601).
 */
export interface ServerEvent {
  type: string;
  /** Unix milliseconds. */
  timestamp: number;
  /** The run it is about (`data.run_id`), or null. */
  runId: string | null;
  /** The job it is about (`data.job_id`), or null. */
  jobId: string | null;
  data: Record<string, unknown>;
  at: string;
}

/**
 * The in-process event channel: what this server saw happen, pushed to every subscriber (the
 * dashboard, `GET /api/events`, `/ws`). It holds no history: a subscriber sees what happens
 * after it subscribes and reads the rest from the API.
 */
export class EventBus {
  private readonly listeners = new Set<(event: ServerEvent) => void>();

  publish(type: string, data: Record<string, unknown>): void {
    if (this.listeners.size === 0) return;
    const timestamp = Date.now();
    const event: ServerEvent = {
      type,
      timestamp,
      runId: typeof data.run_id === "string" ? data.run_id : null,
      jobId: typeof data.job_id === "string" ? data.job_id : null,
      data,
      at: new Date(timestamp).toISOString(),
    };
    for (const listener of this.listeners) listener(event);
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }
}

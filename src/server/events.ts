/** One event on the server's channel (`GET /api/events`): run steps, approvals, decisions. */
export interface ServerEvent {
  type: string;
  data: Record<string, unknown>;
  at: string;
}

/**
 * The in-process event channel: what this server saw happen, pushed to every subscriber (the
 * dashboard, `GET /api/events` over SSE). It holds no history: a subscriber sees what happens
 * after it subscribes and reads the rest from the API.
 */
export class EventBus {
  private readonly listeners = new Set<(event: ServerEvent) => void>();

  publish(type: string, data: Record<string, unknown>): void {
    const event: ServerEvent = { type, data, at: new Date().toISOString() };
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

import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { LiveRun, RunEvent } from "./live-run.js";
import { eventFilter } from "./stream-modes.js";

/**
 * Streams a live run as server-sent events (`event: <mode>`, `data: <json>`, `id: <n>`), from
 * after `lastEventId` when a client reconnects, until the run ends or the client goes away
 * (`onDisconnect` then runs: the run's `on_disconnect`).
 */
export function streamRun(
  c: Context,
  live: LiveRun,
  modes: readonly string[],
  options: { lastEventId?: number; onDisconnect?: () => void } = {},
): Response {
  const wanted = eventFilter(modes);
  return streamSSE(c, async (stream) => {
    const queue: Array<RunEvent | null> = [];
    let wake: (() => void) | undefined;
    const stop = live.follow((event) => {
      if (event && !wanted(event.event)) return;
      queue.push(event);
      wake?.();
    }, options.lastEventId ?? -1);
    let gone = false;
    stream.onAbort(() => {
      gone = true;
      stop();
      wake?.();
      options.onDisconnect?.();
    });
    for (;;) {
      const next = queue.shift();
      if (next === undefined) {
        if (gone) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        continue;
      }
      if (next === null || gone) break;
      await stream.writeSSE({
        event: next.event,
        data: JSON.stringify(next.data),
        id: String(next.id),
      });
    }
    stop();
  });
}

/**
 * Waits `ms`, or less when `signal` aborts first: it resolves either way, so a loop that sleeps
 * between passes (a worker, a maintenance schedule) wakes at once to see it was stopped.
 *
 * @example
 * await pause(1_000, controller.signal); // returns early on controller.abort()
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}

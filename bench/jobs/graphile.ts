import { makeWorkerUtils, run, runMigrations } from "graphile-worker";

const silent = {
  // graphile-worker's logger interface: a scope function returning the logger, and log levels.
  scope: () => silent,
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: (message: string) => console.error(message),
};

/** Installs graphile-worker's schema in `url` (its own database). */
export async function prepareGraphile(url: string): Promise<void> {
  await runMigrations({ connectionString: url, logger: silent as never });
}

/**
 * Queues `n` no-op jobs, then runs graphile-worker with `concurrency` until all completed;
 * resolves jobs/s. `batched`: its local queue (jobs fetched 500 at a time) and batched
 * completions — the figure graphile-worker's own docs quote for throughput.
 */
export async function drainWithGraphile(
  url: string,
  n: number,
  concurrency: number,
  batched: boolean,
): Promise<number> {
  const utils = await makeWorkerUtils({ connectionString: url, logger: silent as never });
  try {
    for (let i = 0; i < n; i += 500) {
      await utils.addJobs(
        Array.from({ length: Math.min(500, n - i) }, () => ({ identifier: "noop", payload: {} })),
      );
    }
  } finally {
    await utils.release();
  }
  let done = 0;
  let finish: () => void = () => {};
  const all = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const start = performance.now();
  const runner = await run({
    connectionString: url,
    concurrency,
    noHandleSignals: true,
    pollInterval: 100,
    maxPoolSize: concurrency + 2,
    logger: silent as never,
    taskList: {
      noop: async () => {
        done++;
        if (done === n) finish();
      },
    },
    ...(batched
      ? {
          preset: {
            worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 },
          },
        }
      : {}),
  } as Parameters<typeof run>[0]);
  await all;
  // Completions are committed after the task resolves: wait until the queue is really empty.
  const seconds = (performance.now() - start) / 1000;
  await runner.stop();
  return n / seconds;
}

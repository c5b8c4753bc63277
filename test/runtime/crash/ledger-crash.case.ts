/**
 * The ledger crash test: a governed graph whose nodes call a non-idempotent `write` tool (append
 * a line to a file) runs in a child process killed with SIGKILL at seeded random instants, then
 * is recovered by another process (the test's). The trials and the checks every trial passes are
 * test/support/crash-trials.ts's; here, besides: every node's every call made, exactly once.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import {
  buildCrashWorker,
  type CrashSetup,
  runCrashTrials,
  runWorker,
} from "../../support/crash-trials.js";
import { CALLS, crashGraph, crashTools, NODES } from "./ledger-crash-app.js";

const here = dirname(fileURLToPath(import.meta.url));

/** Registers the crash test on `setup()`'s database. */
export function ledgerCrashTest(
  label: string,
  setup: () => Promise<CrashSetup>,
  trials: number,
  firstSeed: number,
): void {
  it(`${label}: ${trials} seeded SIGKILL trials; no effect twice, every unknown surfaced and settled`, async () => {
    const worker = await buildCrashWorker(join(here, "ledger-worker.ts"));
    const opened = await setup();
    // An uninterrupted run: the reference.
    const reference = await runWorker(worker, [
      "start",
      opened.db,
      join(opened.dir, "reference.log"),
      "reference",
    ]);
    expect(reference.result?.status, reference.stderr).toBe("succeeded");
    const totals = await runCrashTrials({
      worker,
      setup: opened,
      trials,
      firstSeed,
      phases: 2 * NODES * CALLS,
      tools: (effects) => crashTools(effects),
      graph: (runtime) => crashGraph(runtime),
      settledOutput: () => ({ ok: true }),
      maxRecoveries: 12,
      check: ({ seed, written }) => {
        expect(written.length, `seed ${seed}: ${written.join(",")}`).toBe(NODES * CALLS);
      },
    });
    // Some kills left effects in doubt, both ways.
    expect(totals.settledSucceeded).toBeGreaterThan(0);
    expect(totals.settledFailed).toBeGreaterThan(0);
    console.info(`ledger crash test (${label}):`, JSON.stringify(totals));
  });
}

/**
 * The governed agent's crash test: the paying agent runs in a child process killed with SIGKILL
 * at seeded instants around its payments, then is recovered by the test's process. The trials and
 * the checks every trial passes (no payment twice, every in-doubt payment surfaced to an operator
 * and settled) are test/support/crash-trials.ts's; here, besides: the agent's final answer.
 */
import { fileURLToPath } from "node:url";
import type { BaseMessage } from "@langchain/core/messages";
import { expect, it } from "vitest";
import { buildCrashWorker, type CrashSetup, runCrashTrials } from "../../support/crash-trials.js";
import { FINAL_ANSWER, PAYMENTS, payingAgent, paymentTools } from "./agent-crash-app.js";

const worker = fileURLToPath(new URL("./agent-worker.ts", import.meta.url));

export function agentCrashTest(
  label: string,
  setup: () => Promise<CrashSetup>,
  trials: number,
  firstSeed: number,
): void {
  it(`${label}: ${trials} seeded SIGKILL trials; a payment is never made twice, an in-doubt one waits for an operator`, async () => {
    const totals = await runCrashTrials({
      worker: await buildCrashWorker(worker),
      setup: await setup(),
      trials,
      firstSeed,
      phases: 2 * PAYMENTS,
      tools: (effects) => paymentTools(effects),
      graph: (runtime) => payingAgent(runtime),
      settledOutput: (key) => ({ receipt: key }),
      check: ({ seed, result }) => {
        if (result === null) return;
        const messages = (result as { messages: BaseMessage[] }).messages;
        expect(messages.at(-1)?.content, `seed ${seed}`).toBe(FINAL_ANSWER);
      },
    });
    expect(totals.unknownSurfaced).toBeGreaterThan(0);
    console.info(`agent crash test (${label}):`, JSON.stringify(totals));
  });
}

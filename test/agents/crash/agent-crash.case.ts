/**
 * The governed agent's crash test: the paying agent runs in a child process killed with SIGKILL
 * at seeded instants around its payments, then is recovered by the test's process. A payment
 * surfaced as `unknown` waits for an operator, who (the test) settles it by looking at the
 * effects file. Each trial must end with every payment made exactly once, the ledger's
 * succeeded payments each in the file once, and the agent's final answer.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BaseMessage } from "@langchain/core/messages";
import { sql } from "kysely";
import { expect, it } from "vitest";
import { GovernedRuntime } from "../../../src/runtime/index.js";
import { seededRandom } from "../../checkpoint/crash/crash-harness.js";
import {
  buildCrashWorker,
  type LedgerCrashSetup,
  lines,
  runWorker,
} from "../../runtime/crash/ledger-crash.case.js";
import { FINAL_ANSWER, PAYMENTS, payingAgent, paymentTools } from "./agent-crash-app.js";

const worker = fileURLToPath(new URL("./agent-worker.ts", import.meta.url));

export function agentCrashTest(
  label: string,
  setup: () => Promise<LedgerCrashSetup>,
  trials: number,
  firstSeed: number,
): void {
  it(`${label}: ${trials} seeded SIGKILL trials; a payment is never made twice, an in-doubt one waits for an operator`, async () => {
    const bundle = await buildCrashWorker(worker);
    const { db, store, dir } = await setup();
    const totals = { killedMidRun: 0, unknownSurfaced: 0, settledSucceeded: 0, settledFailed: 0 };
    const phases = 2 * PAYMENTS;
    for (let trial = 0; trial < trials; trial++) {
      const seed = firstSeed + trial;
      const effects = join(dir, `payments-${seed}.log`);
      const trialId = `agent-trial-${seed}`;
      const random = seededRandom(seed);
      const aim = { phase: Math.floor(random() * (phases + 1)), delayMs: random() * 4 };
      const killed = await runWorker(bundle, ["start", db, effects, trialId], aim);
      if (killed.signal === "SIGKILL") totals.killedMidRun += 1;
      const runs = await sql<{ id: string }>`
        SELECT r.id FROM state_runs r JOIN state_run_grants g ON g.id = r.id WHERE r.graph_id = ${trialId}`.execute(
        store.kysely,
      );
      let runId = runs.rows[0]?.id;
      if (runId === undefined) {
        const again = await runWorker(bundle, ["start", db, effects, trialId]);
        expect(again.result?.status, again.stderr).toBe("succeeded");
        runId = again.result?.runId;
      }
      expect(runId, `seed ${seed}: no run`).toBeDefined();
      const operator = new GovernedRuntime({ store, tools: paymentTools(effects) });
      const agent = payingAgent(operator);
      const surfaced: string[] = [];
      let status = killed.signal === null ? (killed.result?.status ?? "") : "";
      let result: unknown = null;
      for (let round = 0; status !== "succeeded" && round < 8; round++) {
        const recovered = await operator.recover(runId as string, agent);
        status = recovered.run.status;
        result = recovered.result;
        for (const wait of recovered.waitingFor) {
          // An in-doubt payment is never assumed made or not made: it waits for a person.
          expect(wait.kind, `seed ${seed}`).toBe("operator");
          const id = wait.tool_call_id as string;
          surfaced.push(id);
          totals.unknownSurfaced += 1;
          const { toolCall } = await operator.ledger.get(id);
          expect(toolCall.status, `seed ${seed}`).toBe("unknown");
          const happened = lines(effects).includes(toolCall.idempotency_key);
          await operator.ledger.resolveUnknown(toolCall.tool_call_id, {
            outcome: happened ? "succeeded" : "failed",
            output: { receipt: toolCall.idempotency_key },
            by: "crash-test",
            reason: happened ? "the payment is in the file" : "the payment is not in the file",
          });
          if (happened) totals.settledSucceeded += 1;
          else totals.settledFailed += 1;
        }
      }
      expect(status, `seed ${seed}`).toBe("succeeded");
      if (result !== null) {
        const messages = (result as { messages: BaseMessage[] }).messages;
        expect(messages.at(-1)?.content, `seed ${seed}`).toBe(FINAL_ANSWER);
      }
      const written = lines(effects);
      expect(new Set(written).size, `seed ${seed}: a payment twice: ${written}`).toBe(
        written.length,
      );
      const calls = await sql<{ idempotency_key: string; status: string }>`
        SELECT idempotency_key, status FROM state_tool_calls WHERE task_id = ${runId as string}`.execute(
        store.kysely,
      );
      const succeeded = calls.rows.filter((c) => c.status === "succeeded");
      // Every payment the ledger says was made is in the file exactly once (one settled as not
      // made came back to the model as an error ToolMessage; it is not made later).
      for (const call of succeeded)
        expect(
          written.filter((line) => line === call.idempotency_key),
          `seed ${seed}`,
        ).toHaveLength(1);
      expect(calls.rows.some((c) => c.status === "unknown" || c.status === "attempted")).toBe(
        false,
      );
    }
    expect(totals.killedMidRun).toBeGreaterThanOrEqual(Math.ceil(trials * 0.9));
    expect(totals.unknownSurfaced).toBeGreaterThan(0);
    console.info(`agent crash test (${label}):`, JSON.stringify(totals));
  });
}

import { afterAll, describe, expect, it } from "vitest";
import {
  type GovernedRunResult,
  loadGovernedApp,
  readAuditTrace,
} from "../../src/runtime/index.js";
import type { Store } from "../../src/store/index.js";
import { keelInProcess } from "../store/cli-in-process.js";
import { chargeWorld } from "./support/ledger-app.js";

/** A database for the in-process CLI: the test's store on it, and what `--db` names. */
export interface LedgerCliHarness {
  readonly dialect: "sqlite" | "postgres";
  open(label: string): Promise<{ store: Store; db: string }>;
  cleanup(): Promise<void>;
}

const APP = new URL("./support/ledger-app.ts", import.meta.url).href;
const MISSING = "01a20271-0000-7000-8000-000000000000";
type Problem = { path: string; code: string; message: string };
type Json = Record<string, unknown>;

/**
 * `keel ledger list|show|resolve` run in process against a real database, with governed runs
 * of `support/ledger-app.ts` (recorded with `start({ app })`) left paused by a call in doubt.
 */
export function runLedgerCliCases(harness: LedgerCliHarness): void {
  describe(`keel ledger: ${harness.dialect}`, { timeout: 60_000 }, () => {
    afterAll(() => harness.cleanup());

    async function setup(label: string) {
      const { store, db } = await harness.open(label);
      const { runtime, graph } = await loadGovernedApp(APP, store);
      const keel = (...args: string[]) => keelInProcess([...args, "--db", db]);
      const json = async (...args: string[]) => keel(...args, "--json");
      const resolve = (toolCallId: string, ...args: string[]) =>
        json("ledger", "resolve", toolCallId, ...args);
      /** A run of the app whose charge of `order` crashes `when`: paused for an operator. */
      const paused = async (order: string, when: "before" | "after" = "after") => {
        chargeWorld.order = order;
        chargeWorld.crashNext = when;
        const started = await runtime.start({
          graph,
          input: {},
          autonomy: "A4",
          risk: "low",
          app: APP,
        });
        expect(started.run.status).toBe("paused");
        const toolCallId = started.waitingFor[0]?.tool_call_id ?? "";
        expect(started.waitingFor[0]?.kind).toBe("operator");
        return { started, toolCallId };
      };
      const finished = async (order: string): Promise<GovernedRunResult> => {
        chargeWorld.order = order;
        return runtime.start({ graph, input: {}, autonomy: "A4", risk: "low", app: APP });
      };
      return { store, runtime, graph, keel, json, resolve, paused, finished };
    }
    const ids = (result: { json: Json }) =>
      (result.json.calls as { toolCall: { tool_call_id: string } }[]).map(
        (c) => c.toolCall.tool_call_id,
      );

    it("the operator's pause names `keel ledger resolve` with the call's id", async () => {
      const { paused } = await setup("hint");
      const { started, toolCallId } = await paused("o-hint");
      const how = started.waitingFor[0]?.how_to_continue ?? "";
      expect(how).toContain(`keel ledger resolve ${toolCallId} --outcome succeeded`);
      expect(how).toContain(started.run.id);
    });

    it("list shows the unknown calls by default and filters by status, trace and run; show gives the call, its result and request", async () => {
      const { keel, json, paused, finished } = await setup("list");
      const doubt = await paused("o-doubt");
      const done = await finished("o-done");
      expect(done.run.status).toBe("succeeded");
      const doneCall = await json("ledger", "list", "--status", "succeeded");
      expect(doneCall.exitCode, doneCall.stdout).toBe(0);
      const [doneId] = ids(doneCall);

      const listed = await json("ledger", "list");
      expect(listed.exitCode, listed.stdout).toBe(0);
      expect(ids(listed)).toEqual([doubt.toolCallId]);
      expect(ids(await json("ledger", "list", "--status", "all"))).toEqual([
        doneId,
        doubt.toolCallId,
      ]);
      expect(ids(await json("ledger", "list", "--status", "all", "--limit", "1"))).toEqual([
        doneId,
      ]);
      expect(ids(await json("ledger", "list", "--status", "all", "--run", done.run.id))).toEqual([
        doneId,
      ]);
      expect(
        ids(
          await json("ledger", "list", "--status", "all", "--trace", doubt.started.task.trace_id),
        ),
      ).toEqual([doubt.toolCallId]);
      expect(ids(await json("ledger", "list", "--status", "failed"))).toEqual([]);
      expect(ids(await json("ledger", "list", "--status", "attempted"))).toEqual([]);
      const human = await keel("ledger", "list");
      expect(human.stdout).toContain(doubt.toolCallId);
      expect(human.stdout).toContain("ops.charge");

      const bad = await json("ledger", "list", "--status", "maybe");
      expect(bad.exitCode).toBe(2);
      expect(bad.json).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
      expect((await json("ledger", "list", "--limit", "0")).exitCode).toBe(2);

      const shown = await json("ledger", "show", doubt.toolCallId);
      expect(shown.exitCode, shown.stdout).toBe(0);
      expect(shown.json).toMatchObject({
        ok: true,
        toolCall: { tool_call_id: doubt.toolCallId, status: "unknown", tool_name: "ops.charge" },
        result: null,
        request: { tool: "ops.charge", input: { order: "o-doubt" } },
        response: null,
      });
      const shownDone = await json("ledger", "show", doneId ?? "");
      expect(shownDone.json).toMatchObject({
        toolCall: { status: "succeeded" },
        result: { status: "succeeded" },
        response: { amount: 10 },
      });
      const humanShow = await keel("ledger", "show", doubt.toolCallId);
      expect(humanShow.stdout).toContain(`keel ledger resolve ${doubt.toolCallId}`);

      const missing = await json("ledger", "show", MISSING);
      expect(missing.exitCode).toBe(5);
      expect(missing.json).toMatchObject({ ok: false, error: { code: "TOOL_CALL_NOT_FOUND" } });
    });

    it("resolve --outcome succeeded settles the call with the operator's output, audited, and resumes the run to success without redoing the effect", async () => {
      const { store, runtime, json, resolve, paused } = await setup("resolve_ok");
      const { started, toolCallId } = await paused("o-ok", "after");
      expect(chargeWorld.charges.filter((o) => o === "o-ok")).toHaveLength(1);
      const resolved = await resolve(
        toolCallId,
        "--outcome",
        "succeeded",
        "--output",
        '{"receipt":"rc-manual","amount":10}',
        "--by",
        "ops",
        "--reason",
        "the provider shows the charge",
      );
      expect(resolved.exitCode, resolved.stdout).toBe(0);
      expect(resolved.json).toMatchObject({
        ok: true,
        toolCall: { tool_call_id: toolCallId, status: "succeeded" },
        result: { status: "succeeded" },
        outputChecked: true,
        run: { id: started.run.id, continued: true, status: "succeeded" },
      });
      expect((await runtime.runs.get(started.run.id)).status).toBe("succeeded");
      // The run went on with the operator's answer; the tool did not run again.
      expect(chargeWorld.charges.filter((o) => o === "o-ok")).toHaveLength(1);
      const trace = await readAuditTrace(store, started.task.trace_id);
      const settled = trace.find((e) => e.type === "tool_call.resolved");
      expect(settled?.summary).toMatch(/ops settled an unknown call as succeeded/);
      const shown = await json("ledger", "show", toolCallId);
      expect(shown.json).toMatchObject({ response: { receipt: "rc-manual", amount: 10 } });

      const again = await resolve(toolCallId, "--outcome", "failed", "--reason", "second thoughts");
      expect(again.exitCode).toBe(2);
      expect(again.json).toMatchObject({ ok: false, error: { code: "ILLEGAL_TRANSITION" } });
      expect((await runtime.ledger.get(toolCallId)).toolCall.status).toBe("succeeded");
    });

    it("resolve --outcome failed --no-resume only settles; the resumed run calls the tool again", async () => {
      const { runtime, graph, resolve, paused } = await setup("resolve_failed");
      const { started, toolCallId } = await paused("o-failed", "before");
      expect(chargeWorld.charges).not.toContain("o-failed");
      const resolved = await resolve(
        toolCallId,
        "--outcome",
        "failed",
        "--by",
        "ops",
        "--reason",
        "no charge at the provider",
        "--no-resume",
      );
      expect(resolved.exitCode, resolved.stdout).toBe(0);
      expect(resolved.json).toMatchObject({
        toolCall: { status: "failed" },
        result: { status: "failed", error: { code: "OPERATOR_RESOLVED_FAILED" } },
        run: null,
      });
      expect((await runtime.runs.get(started.run.id)).status).toBe("paused");
      const done = await runtime.resume(started.run.id, graph);
      expect(done.run.status).toBe("succeeded");
      expect(chargeWorld.charges.filter((o) => o === "o-failed")).toHaveLength(1);
      const twice = await resolve(toolCallId, "--outcome", "failed", "--reason", "again");
      expect(twice.exitCode).toBe(2);
      expect(twice.json).toMatchObject({ error: { code: "ILLEGAL_TRANSITION" } });
    });

    it("refuses bad arguments and an output failing the tool's schema with every problem, recording nothing", async () => {
      const { runtime, resolve, paused } = await setup("resolve_bad");
      const { started, toolCallId } = await paused("o-bad");
      const byOps = (...args: string[]) => resolve(toolCallId, "--by", "ops", ...args);

      const invalid = await byOps(
        "--outcome",
        "succeeded",
        "--output",
        '{"receipt":5,"extra":true}',
        "--reason",
        "checked",
      );
      expect(invalid.exitCode).toBe(2);
      const error = invalid.json.error as { code: string; details: { problems: Problem[] } };
      expect(error.code).toBe("TOOL_OUTPUT_INVALID");
      // Every problem: the wrong type, the missing field and the extra one.
      expect(error.details.problems.map((p) => `${p.path} ${p.code}`).sort()).toEqual([
        "/amount missing",
        "/extra extra_forbidden",
        "/receipt schema_type",
      ]);

      const noOutput = await byOps("--outcome", "succeeded", "--reason", "checked");
      expect(noOutput.exitCode).toBe(2);
      expect(noOutput.json).toMatchObject({ error: { code: "TOOL_OUTPUT_INVALID" } });

      for (const args of [
        ["--outcome", "succeeded", "--output", "{not json", "--reason", "checked"],
        ["--outcome", "failed", "--output", '{"receipt":"x","amount":1}', "--reason", "checked"],
        ["--outcome", "maybe", "--reason", "checked"],
        ["--reason", "checked"],
        ["--outcome", "failed"],
        ["--outcome", "failed", "--reason", "  "],
      ]) {
        const refused = await byOps(...args);
        expect(refused.exitCode, args.join(" ")).toBe(2);
        expect(refused.json, args.join(" ")).toMatchObject({
          ok: false,
          error: { code: "INVALID_ARGUMENT" },
        });
      }
      // Nothing was recorded and the run still waits.
      expect((await runtime.ledger.get(toolCallId)).toolCall.status).toBe("unknown");
      expect((await runtime.runs.get(started.run.id)).status).toBe("paused");

      const missing = await resolve(MISSING, "--outcome", "failed", "--reason", "checked");
      expect(missing.exitCode).toBe(5);
      expect(missing.json).toMatchObject({ error: { code: "TOOL_CALL_NOT_FOUND" } });
    });
  });
}

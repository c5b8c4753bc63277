import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keelInProcess } from "../store/cli-in-process.js";
import type { CliDatabases } from "./support/cli-databases.js";

// An operator's recovery after a governed process is killed mid-call: `ledger list` shows the
// lapsed `attempted` call, `runs recover` marks it unknown and the run waits for `ledger resolve`,
// which settles it and finishes the run. One real kill -9; everything else runs in process.

/**
 * The recovery suite on one dialect (`databases`: a migrated SQLite file or the test file's
 * Postgres database).
 */
export function runRecoverCliCases(databases: CliDatabases): void {
  const root = new URL("../../", import.meta.url).pathname;
  const dir = mkdtempSync(join(tmpdir(), "keel-recover-"));
  let db = "";
  const hang = join(dir, "hang");
  const entered = join(dir, "entered");
  const children: ChildProcess[] = [];

  writeFileSync(
    join(dir, "pay.json"),
    JSON.stringify({
      ir_version: "1.0.0",
      id: "graph:recover",
      nodes: [
        { id: "pay", kind: "./kinds.mjs:pay" },
        { id: "done", kind: "halt" },
      ],
      tools: [{ id: "payments.pay", version: "1.0.0" }],
      state_schema: { customer: "str", receipt: "str?" },
    }),
  );
  writeFileSync(
    join(dir, "kinds.mjs"),
    `import { existsSync, writeFileSync } from "node:fs";
export async function pay(state, { call }) {
  const r = await call("payments.pay", { customer: state.customer });
  return { receipt: r.receipt };
}
export const tools = [{
  spec: { name: "pay", namespace: "payments", version: "1.0.0", description: "Pay",
    input_schema: { type: "object" }, output_schema: { type: "object" },
    side_effects: "external", tags: ["risk:low"] },
  handler: async () => {
    if (existsSync(${JSON.stringify(hang)})) {
      writeFileSync(${JSON.stringify(entered)}, "");
      await new Promise(() => setInterval(() => {}, 1000));
    }
    return { receipt: "r-1" };
  },
}];
`,
  );

  async function keel(...args: string[]) {
    return keelInProcess([...args, "--db", db, "--json"]);
  }

  /** Starts `keel run` in a child, waits until its tool is inside the effect, then kill -9s it. */
  async function killMidCall(): Promise<void> {
    writeFileSync(hang, "");
    if (!existsSync(join(root, "dist/cli/main.js"))) throw new Error("run `npm run build` first");
    const child = spawn(
      process.execPath,
      [join(root, "bin/keel.js"), "run", join(dir, "pay.json"), "--input", '{"customer":"c1"}'],
      { cwd: dir, env: { ...process.env, KEEL_DATABASE_URL: db, NO_COLOR: "1" }, stdio: "ignore" },
    );
    children.push(child);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    // Synchronisation, not timing: the tool writes `entered` once the call is recorded.
    while (!existsSync(entered)) {
      if (child.exitCode !== null) throw new Error(`keel run exited early (${child.exitCode})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill("SIGKILL");
    await exited;
    rmSync(hang);
  }

  describe(`keel runs recover: ${databases.dialect}`, { timeout: 120_000 }, () => {
    beforeAll(async () => {
      db = await databases.fresh();
    });
    afterAll(async () => {
      for (const child of children) child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      await databases.cleanup();
    });

    it("after kill -9 mid-call: ledger list shows the lapsed call; recover → unknown → resolve → done", async () => {
      await killMidCall();
      const threads = (await keel("runs", "list")).json.threads as {
        latestRun: { id: string; status: string };
      }[];
      const run = threads[0]?.latestRun;
      expect(run?.status).toBe("running");
      const runId = run?.id as string;

      const lapsed = await keel("ledger", "list");
      const calls = lapsed.json.calls as {
        toolCall: { tool_call_id: string; status: string };
        leaseLapsed: boolean;
      }[];
      expect(calls.map((c) => [c.toolCall.status, c.leaseLapsed])).toEqual([["attempted", true]]);
      const callId = calls[0]?.toolCall.tool_call_id as string;
      const human = await keelInProcess(["ledger", "list", "--db", db]);
      expect(human.stdout).toContain("attempted (lease lapsed)");
      expect(human.stdout).toContain(`keel runs recover ${runId}`);

      // Resolving an `attempted` call is refused: it may still be in flight.
      const early = await keel("ledger", "resolve", callId, "--outcome", "failed", "--reason", "x");
      expect(early.exitCode).toBe(2);

      const recovered = await keel("runs", "recover", "--all");
      expect(recovered.exitCode, recovered.stdout + recovered.stderr).toBe(0);
      const [one] = recovered.json.recovered as {
        runId: string;
        markedUnknown: string[];
        run: { status: string; waitingFor: { kind: string; how_to_continue: string }[] };
      }[];
      expect(one?.runId).toBe(runId);
      expect(one?.markedUnknown).toEqual([callId]);
      expect(one?.run.status).toBe("paused");
      expect(one?.run.waitingFor[0]?.how_to_continue).toContain(`keel ledger resolve ${callId}`);

      // The marking is audited, in the hash chain.
      const audit = await keel("audit", "list", "--type", "tool_call.unknown");
      const events = audit.json.events as { summary: string; refs: { tool_call_id: string } }[];
      expect(events.map((e) => e.refs.tool_call_id)).toEqual([callId]);
      expect(events[0]?.summary).toContain("lease lapsed");

      const again = await keel("runs", "recover", runId);
      expect((again.json.recovered as { outcome: string }[])[0]?.outcome).toBe("finished");

      const settled = await keel(
        ...["ledger", "resolve", callId, "--outcome", "succeeded"],
        ...["--output", '{"receipt":"r-1"}', "--reason", "the provider shows receipt r-1"],
      );
      expect(settled.exitCode, settled.stdout + settled.stderr).toBe(0);
      expect((settled.json.run as { status: string }).status).toBe("succeeded");
    });

    it("names one run or --all, not both", async () => {
      const result = await keel("runs", "recover");
      expect(result.exitCode).toBe(2);
      expect((result.json.error as { code: string }).code).toBe("INVALID_ARGUMENT");
    });
  });
}

/**
 * The ledger crash test: a governed graph whose nodes call a non-idempotent `write` tool (append
 * a line to a file) runs in a child process killed with SIGKILL at seeded random instants, then
 * is recovered by another process (the test's). An operator (the test) settles every call surfaced as
 * `unknown` by looking at the file. Each trial must end with every call's effect in the file
 * exactly once: never twice for a call the ledger recorded `succeeded`, and every doubt surfaced.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import { expect, it } from "vitest";
import { GovernedRuntime, readAuditTrace } from "../../../src/runtime/index.js";
import type { Store } from "../../../src/store/index.js";
import { seededRandom } from "../../checkpoint/crash/crash-harness.js";
import { bundleChild } from "../../support/child-bundle.js";
import { CALLS, crashGraph, crashTools, NODES } from "./ledger-crash-app.js";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, "..", "..", "..");

/** Bundles the worker once (a bundled child starts in a fraction of tsx's time). */
export function buildLedgerWorker(): Promise<string> {
  return buildCrashWorker(join(here, "ledger-worker.ts"));
}

/** Bundles a crash test's worker (`entry`, a .ts file) into an .mjs a child process runs. */
export function buildCrashWorker(entry: string): Promise<string> {
  return bundleChild(entry);
}

export interface Outcome {
  signal: NodeJS.Signals | null;
  result: {
    runId: string;
    status: string;
    waitingFor: { kind: string; tool_call_id?: string }[];
  } | null;
  runMs: number;
  stderr: string;
}

/**
 * Where a trial's kill lands: `delayMs` after the `phase`-th phase line of the child's calls
 * (`before` or `after` an effect; 0 means after `ready`, before any call).
 */
export interface KillAim {
  phase: number;
  delayMs: number;
}

/**
 * Runs `worker` with `args` in a child process (args[1] is the database), killing it with SIGKILL
 * as `aim` says; resolves with how it ended and the JSON line it printed last.
 */
export function runWorker(worker: string, args: string[], aim?: KillAim): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const dialect = args[1]?.startsWith("postgres") ? "postgres" : "sqlite";
    const child: ChildProcess = spawn(process.execPath, [worker, ...args], {
      cwd: repoRoot,
      env: {
        ...process.env,
        KEEL_MIGRATIONS_DIR: join(repoRoot, "src", "store", "migrations", dialect),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let readyAt = 0;
    let aimed = false;
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (readyAt === 0 && stdout.includes("ready\n")) readyAt = performance.now();
      if (aim === undefined || aimed || readyAt === 0) return;
      const phases = (stdout.match(/^(before|after)$/gm) ?? []).length;
      if (phases >= aim.phase) {
        aimed = true;
        setTimeout(() => child.kill("SIGKILL"), aim.delayMs);
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (_code, signal) => {
      const last = stdout.trim().split("\n").pop() ?? "";
      let result: Outcome["result"] = null;
      try {
        result = last.startsWith("{") ? JSON.parse(last) : null;
      } catch {
        result = null;
      }
      resolve({ signal, result, runMs: readyAt ? performance.now() - readyAt : 0, stderr });
    });
  });
}

export interface LedgerCrashSetup {
  /** The database the children open (file path or URL). */
  db: string;
  /** A store on it for the parent's operator and checks. */
  store: Store;
  /** A folder for the effects files. */
  dir: string;
}

/** Registers the crash test on `setup()`'s database. */
export function ledgerCrashTest(
  label: string,
  setup: () => Promise<LedgerCrashSetup>,
  trials: number,
  firstSeed: number,
): void {
  it(`${label}: ${trials} seeded SIGKILL trials; no effect twice, every unknown surfaced and settled`, async () => {
    const worker = await buildLedgerWorker();
    const { db, store, dir } = await setup();
    const totals = { killedMidRun: 0, unknownSurfaced: 0, settledSucceeded: 0, settledFailed: 0 };
    // An uninterrupted run: the reference, and the number of phases kills are aimed at.
    const reference = await runWorker(worker, [
      "start",
      db,
      join(dir, "reference.log"),
      "reference",
    ]);
    expect(reference.result?.status, reference.stderr).toBe("succeeded");
    const phases = 2 * NODES * CALLS;
    for (let trial = 0; trial < trials; trial++) {
      const seed = firstSeed + trial;
      const effects = join(dir, `effects-${seed}.log`);
      const trialId = `trial-${seed}`;
      const random = seededRandom(seed);
      // Aimed at a seeded phase of a seeded call (or before any), then a seeded 0–4 ms on: the
      // kill lands in the windows that matter (before the effect, after it before `succeeded`,
      // in the commits and checkpoint writes around them) instead of wherever a timer falls.
      const aim = { phase: Math.floor(random() * (phases + 1)), delayMs: random() * 4 };
      const killed = await runWorker(worker, ["start", db, effects, trialId], aim);
      if (killed.signal === "SIGKILL") totals.killedMidRun += 1;
      const runs = await sql<{ id: string }>`
        SELECT r.id FROM state_runs r JOIN state_run_grants g ON g.id = r.id WHERE r.graph_id = ${trialId}`.execute(
        store.kysely,
      );
      let runId = runs.rows[0]?.id;
      if (runId === undefined) {
        // Killed before the run was recorded: start it again.
        const again = await runWorker(worker, ["start", db, effects, trialId]);
        runId = again.result?.runId;
      }
      expect(runId, `seed ${seed}: no run`).toBeDefined();
      // Recovery runs here, in the parent: a process other than the killed one, as after a crash
      // (a child per recovery round cost CI a process start each and tested nothing more). The
      // killed child's leases (thread and calls) lapse at once: its process is gone.
      const operator = new GovernedRuntime({ store, tools: crashTools(effects) });
      const graph = crashGraph(operator);
      const surfaced: string[] = [];
      let status = killed.signal === null ? (killed.result?.status ?? "") : "";
      for (let round = 0; status !== "succeeded" && round < 12; round++) {
        const recovered = await operator.recover(runId as string, graph);
        status = recovered.run.status;
        for (const wait of recovered.waitingFor) {
          expect(wait.kind, `seed ${seed}`).toBe("operator");
          const id = wait.tool_call_id as string;
          surfaced.push(id);
          totals.unknownSurfaced += 1;
          // The operator looks at the world: is the call's line in the file?
          const { toolCall } = await operator.ledger.get(id);
          expect(toolCall.status, `seed ${seed}: surfaced but not unknown`).toBe("unknown");
          const happened = lines(effects).includes(toolCall.idempotency_key);
          await operator.ledger.resolveUnknown(toolCall.tool_call_id, {
            outcome: happened ? "succeeded" : "failed",
            output: { ok: true },
            by: "crash-test",
            reason: happened ? "the line is in the file" : "the line is not in the file",
          });
          if (happened) totals.settledSucceeded += 1;
          else totals.settledFailed += 1;
        }
      }
      expect(status, `seed ${seed}`).toBe("succeeded");
      // Every effect exactly once, and every succeeded call's effect present once.
      const written = lines(effects);
      expect(written.length, `seed ${seed}: ${written.join(",")}`).toBe(NODES * CALLS);
      expect(new Set(written).size, `seed ${seed}: an effect twice`).toBe(written.length);
      const calls = await sql<{ idempotency_key: string; status: string }>`
        SELECT idempotency_key, status FROM state_tool_calls WHERE task_id = ${runId as string}`.execute(
        store.kysely,
      );
      for (const call of calls.rows.filter((c) => c.status === "succeeded")) {
        expect(written.filter((line) => line === call.idempotency_key).length).toBe(1);
      }
      expect(calls.rows.some((c) => c.status === "unknown" || c.status === "attempted")).toBe(
        false,
      );
      // Every call the ledger ever recorded unknown was surfaced to the operator, once, and
      // settled by them: the same calls in the audit's unknowns, the pauses and the resolutions.
      const trace = (await operator.task(runId as string)).trace_id;
      const events = await readAuditTrace(store, trace);
      const callsOf = (type: string) =>
        events
          .filter((e) => e.type === type)
          .map((e) => e.refs.tool_call_id as string)
          .sort();
      expect(callsOf("tool_call.unknown"), `seed ${seed}`).toEqual([...surfaced].sort());
      expect(callsOf("tool_call.resolved"), `seed ${seed}`).toEqual([...surfaced].sort());
    }
    // The kills did land mid-run, and some left effects in doubt, both ways.
    expect(totals.killedMidRun).toBeGreaterThanOrEqual(Math.ceil(trials * 0.9));
    expect(totals.settledSucceeded).toBeGreaterThan(0);
    expect(totals.settledFailed).toBeGreaterThan(0);
    console.info(`ledger crash test (${label}):`, JSON.stringify(totals));
  });
}

/** The lines of an effects file (none when it does not exist). */
export function lines(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter(Boolean);
}

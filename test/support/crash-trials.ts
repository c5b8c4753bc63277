/**
 * Seeded SIGKILL trials of a governed run whose tool makes an external effect (a line appended
 * to a file, keyed by the call's idempotency key), shared by the ledger's and the agent's crash
 * suites. Each trial starts the suite's worker in a child process, kills it at a seeded instant
 * around the effects, then recovers the run in this process (another process than the killed
 * one, as after a crash). An operator (the harness) settles every call surfaced as `unknown` by
 * looking at the file. Every trial must end `succeeded` with:
 * - no effect in the file twice, and every call the ledger recorded `succeeded` in it once;
 * - no call left `unknown` or `attempted`;
 * - every call the ledger ever recorded `unknown` surfaced to the operator once and settled by
 *   them (the audit's `tool_call.unknown` and `tool_call.resolved` events name the same calls).
 * The suite adds its own checks per trial (`check`) and on the totals.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { expect } from "vitest";
import {
  type GovernedGraph,
  GovernedRuntime,
  readAuditTrace,
  type ToolRegistry,
} from "../../src/runtime/index.js";
import type { Store } from "../../src/store/index.js";
import { seededRandom } from "../checkpoint/crash/crash-harness.js";
import { bundleChild, repoRoot } from "./child-bundle.js";

/** How a worker run ended, and the JSON line it printed last. */
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
 * Where a trial's kill lands: `delayMs` after the `phase`-th phase line the child prints
 * (`before` or `after` an effect; 0 means after `ready`, before any call).
 */
export interface KillAim {
  phase: number;
  delayMs: number;
}

/** Bundles a crash test's worker (`entry`, a .ts file) into an .mjs a child process runs. */
export function buildCrashWorker(entry: string): Promise<string> {
  return bundleChild(entry);
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
        // Bundled, a worker cannot find the migrations next to the store's source.
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

/** The lines of an effects file (none when it does not exist). */
export function lines(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter(Boolean);
}

/** The database the children open, a store on it for the operator, a folder for effects files. */
export interface CrashSetup {
  /** File path or URL. */
  db: string;
  store: Store;
  dir: string;
}

/** What happened over all trials. */
export interface CrashTotals {
  killedMidRun: number;
  unknownSurfaced: number;
  settledSucceeded: number;
  settledFailed: number;
}

/** One recovered trial, for the suite's own checks. */
export interface RecoveredTrial {
  seed: number;
  runId: string;
  /** The effects file's lines. */
  written: string[];
  /** The run's result when the last recovery (or the unkilled child) ended it. */
  result: unknown;
  store: Store;
}

export interface CrashTrialsOptions {
  /** The worker bundle: `start <db> <effects> <trial id>` starts the run (graph id = trial id). */
  worker: string;
  setup: CrashSetup;
  trials: number;
  firstSeed: number;
  /** How many phase lines an uninterrupted run prints (kills are aimed among them). */
  phases: number;
  /** The worker's tools, for the operator's runtime here, writing to `effects`. */
  tools(effects: string): ToolRegistry;
  /** The worker's graph, on the operator's runtime. */
  graph(runtime: GovernedRuntime): GovernedGraph;
  /** The output recorded for a settled `unknown` call that did happen. */
  settledOutput(idempotencyKey: string): Record<string, unknown>;
  /** Recovery rounds before a trial fails (each settles what it surfaced). */
  maxRecoveries?: number;
  /** Trials run at once (default 2). */
  concurrency?: number;
  /** The suite's own checks of a recovered trial. */
  check?(trial: RecoveredTrial): void | Promise<void>;
}

/**
 * Runs the trials (see the module's comment); returns the totals after checking that at least
 * 90% of the kills landed mid-run.
 */
export async function runCrashTrials(options: CrashTrialsOptions): Promise<CrashTotals> {
  const { trials, firstSeed } = options;
  const totals: CrashTotals = {
    killedMidRun: 0,
    unknownSurfaced: 0,
    settledSucceeded: 0,
    settledFailed: 0,
  };
  const seeds = Array.from({ length: trials }, (_, trial) => firstSeed + trial);
  // Two lanes, as the checkpoint crash harness: a trial waits on a child's start, its fsyncs and
  // the kill, so a second one runs beside it. Each trial has its own run, graph id and effects
  // file; its kill is aimed by its own seed at its child's phase lines, whatever the other lane
  // does. The operator's store is shared (SQLite: one connection under a mutex).
  const lanes = Array.from({ length: options.concurrency ?? 2 }, async () => {
    for (let seed = seeds.shift(); seed !== undefined; seed = seeds.shift()) {
      await runTrial(options, seed, totals);
    }
  });
  await Promise.all(lanes);
  // The kills did land mid-run.
  expect(totals.killedMidRun).toBeGreaterThanOrEqual(Math.ceil(trials * 0.9));
  return totals;
}

/** One trial (see the module's comment), counted into `totals`. */
async function runTrial(options: CrashTrialsOptions, seed: number, totals: CrashTotals) {
  const { worker, setup, phases } = options;
  const { db, store, dir } = setup;
  const effects = join(dir, `effects-${seed}.log`);
  const trialId = `trial-${seed}`;
  const random = seededRandom(seed);
  // Aimed at a seeded phase of a seeded call (or before any), then a seeded 0–4 ms on: the kill
  // lands in the windows that matter (before the effect, after it before `succeeded`, in the
  // commits and checkpoint writes around them) instead of wherever a timer falls.
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
    expect(again.result?.status, again.stderr).toBe("succeeded");
    runId = again.result?.runId;
  }
  if (runId === undefined) throw new Error(`seed ${seed}: no run`);
  const operator = new GovernedRuntime({ store, tools: options.tools(effects) });
  const graph = options.graph(operator);
  const surfaced: string[] = [];
  let status = killed.signal === null ? (killed.result?.status ?? "") : "";
  let result: unknown = null;
  for (let round = 0; status !== "succeeded" && round < (options.maxRecoveries ?? 8); round++) {
    const recovered = await operator.recover(runId, graph);
    status = recovered.run.status;
    result = recovered.result;
    for (const wait of recovered.waitingFor) {
      // An in-doubt call is never assumed made or not made: it waits for a person.
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
        output: options.settledOutput(toolCall.idempotency_key),
        by: "crash-test",
        reason: happened ? "the effect is in the file" : "the effect is not in the file",
      });
      if (happened) totals.settledSucceeded += 1;
      else totals.settledFailed += 1;
    }
  }
  expect(status, `seed ${seed}`).toBe("succeeded");
  const written = lines(effects);
  expect(new Set(written).size, `seed ${seed}: an effect twice: ${written}`).toBe(written.length);
  const calls = await sql<{ idempotency_key: string; status: string }>`
    SELECT idempotency_key, status FROM state_tool_calls WHERE task_id = ${runId}`.execute(
    store.kysely,
  );
  for (const call of calls.rows.filter((c) => c.status === "succeeded")) {
    expect(
      written.filter((line) => line === call.idempotency_key),
      `seed ${seed}`,
    ).toHaveLength(1);
  }
  expect(calls.rows.some((c) => c.status === "unknown" || c.status === "attempted")).toBe(false);
  const trace = (await operator.task(runId)).trace_id;
  const events = await readAuditTrace(store, trace);
  const callsOf = (type: string) =>
    events
      .filter((e) => e.type === type)
      .map((e) => e.refs.tool_call_id as string)
      .sort();
  expect(callsOf("tool_call.unknown"), `seed ${seed}`).toEqual([...surfaced].sort());
  expect(callsOf("tool_call.resolved"), `seed ${seed}`).toEqual([...surfaced].sort());
  await options.check?.({ seed, runId, written, result, store });
}

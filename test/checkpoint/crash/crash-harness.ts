/**
 * The crash-test harness: runs the crash graph in child processes, kills them with SIGKILL at
 * seeded random instants, checks the database between kills (every checkpoint readable), resumes
 * in a fresh process, and compares the outcome with an uninterrupted run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { DurableSaver } from "../../../src/checkpoint/index.js";
import { CRASH_NODES } from "./crash-graph.js";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, "..", "..", "..");

/**
 * Bundles the worker once into node_modules/.cache (so packages resolve from the repo): a child
 * then starts in a fraction of the time `tsx` needs, which is what lets 50 trials per dialect fit
 * in the test budget.
 */
export async function buildWorker(): Promise<string> {
  const outfile = join(
    repoRoot,
    "node_modules",
    ".cache",
    "keel-crash",
    `worker-${process.pid}.mjs`,
  );
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [join(here, "worker.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outfile,
    logLevel: "silent",
  });
  return outfile;
}

export interface CrashBackend {
  dialect: "sqlite" | "postgres";
  db: string;
  /** The effects database (SQLite file), or "-" when effects live in the Postgres database. */
  effects: string;
  /** A saver for the parent's checks between kills. */
  saver: DurableSaver;
  readEffects(threadId: string): Promise<Map<string, number>>;
}

/** A small seeded PRNG (mulberry32): the same seed gives the same kill instants. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ChildOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from `ready` to exit. */
  runMs: number;
}

/** Runs the worker; kills it `killAfterMs` after it says `ready` when given. */
function runWorker(
  worker: string,
  backend: CrashBackend,
  threadId: string,
  killAfterMs?: number,
): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(
      process.execPath,
      [worker, backend.dialect, backend.db, backend.effects, threadId],
      {
        cwd: repoRoot,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    let readyAt = 0;
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (readyAt === 0 && stdout.includes("ready\n")) {
        readyAt = performance.now();
        if (killAfterMs !== undefined) {
          setTimeout(() => child.kill("SIGKILL"), killAfterMs);
        }
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (exitCode, signal) => {
      resolve({
        exitCode,
        signal,
        stdout,
        stderr,
        runMs: readyAt ? performance.now() - readyAt : 0,
      });
    });
  });
}

export interface TrialReport {
  seed: number;
  threadId: string;
  kills: number;
  /** Kills that landed before the child finished (the others found it already done). */
  effectiveKills: number;
  finalResult: unknown;
  finalStatus: string;
  effects: Record<string, number>;
  /** Tasks (`node@taskId`) whose writes were durable at some kill: they must never run again. */
  durableAtKill: string[];
  /** Kills after which a task of an unfinished step already had its writes durable. */
  killsWithFinishedTasksInStep: number;
  /** Problems found; empty means the trial passed. */
  problems: string[];
}

/** The uninterrupted reference run: its final state and how long it takes. */
export async function referenceRun(
  worker: string,
  backend: CrashBackend,
): Promise<{ result: unknown; runMs: number }> {
  const outcome = await runWorker(worker, backend, `crash-reference-${process.pid}`);
  if (outcome.exitCode !== 0) throw new Error(`reference run failed: ${outcome.stderr}`);
  const final = JSON.parse(outcome.stdout.trim().split("\n").pop() ?? "{}") as { result: unknown };
  return { result: final.result, runMs: outcome.runMs };
}

function countsByNode(counts: ReadonlyMap<string, number>): Record<string, number> {
  const byNode: Record<string, number> = {};
  for (const [key, count] of counts) {
    const node = key.slice(0, key.indexOf("@"));
    byNode[node] = (byNode[node] ?? 0) + count;
  }
  return byNode;
}

/**
 * Reads every checkpoint of a thread (each value decoded and hash-checked) and returns the ids of
 * the tasks whose writes are durable: a finished task's writes are saved as it finishes, so
 * these are exactly the tasks a resume must never run again.
 */
async function durableTasks(
  saver: DurableSaver,
  threadId: string,
): Promise<{ done: Set<string>; inUnfinishedStep: number }> {
  const done = new Set<string>();
  let inUnfinishedStep = 0;
  let latest = true;
  for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) {
    for (const [taskId, channel] of tuple.pendingWrites) {
      if (channel.startsWith("__") || done.has(taskId)) continue;
      done.add(taskId);
      // Writes against the latest checkpoint belong to a step the kill interrupted.
      if (latest) inUnfinishedStep++;
    }
    latest = false;
  }
  return { done, inUnfinishedStep };
}

/** One trial: 1–2 SIGKILLs at seeded instants, then a resume that must finish. */
export async function crashTrial(
  worker: string,
  backend: CrashBackend,
  seed: number,
  reference: { result: unknown; runMs: number },
): Promise<TrialReport> {
  const random = seededRandom(seed);
  const threadId = `crash-${backend.dialect}-${process.pid}-${seed}`;
  const kills = random() < 0.35 ? 2 : 1;
  const problems: string[] = [];
  /** `node@taskId` → its effect count when its writes were first seen durable after a kill. */
  const durable = new Map<string, number>();
  let effectiveKills = 0;
  let killsWithFinishedTasksInStep = 0;
  for (let kill = 0; kill < kills; kill++) {
    const delay = random() * reference.runMs * 1.1;
    const outcome = await runWorker(worker, backend, threadId, delay);
    if (outcome.signal === "SIGKILL") effectiveKills++;
    else if (outcome.exitCode !== 0)
      problems.push(`run ${kill} failed: ${outcome.stderr.slice(0, 500)}`);
    try {
      const { done, inUnfinishedStep } = await durableTasks(backend.saver, threadId);
      if (inUnfinishedStep > 0) killsWithFinishedTasksInStep++;
      for (const [key, count] of await backend.readEffects(threadId)) {
        const taskId = key.slice(key.indexOf("@") + 1);
        if (done.has(taskId) && !durable.has(key)) durable.set(key, count);
      }
    } catch (error) {
      problems.push(`unreadable checkpoint after kill ${kill}: ${String(error)}`);
    }
  }
  const final = await runWorker(worker, backend, threadId);
  let finalResult: unknown;
  let finalStatus = "unknown";
  if (final.exitCode !== 0) {
    problems.push(`resume failed (exit ${final.exitCode}): ${final.stderr.slice(0, 800)}`);
  } else {
    const parsed = JSON.parse(final.stdout.trim().split("\n").pop() ?? "{}") as {
      result: unknown;
      status: string;
    };
    finalResult = parsed.result;
    finalStatus = parsed.status;
  }
  const byTask = await backend.readEffects(threadId);
  for (const [key, atDurable] of durable) {
    const count = byTask.get(key) ?? 0;
    if (count !== atDurable)
      problems.push(
        `task ${key} ran again after its writes were durable (${atDurable} → ${count} runs)`,
      );
  }
  const effects = countsByNode(byTask);
  for (const node of CRASH_NODES) {
    const count = effects[node] ?? 0;
    if (count < 1) problems.push(`${node} never ran`);
    if (count > 1 + effectiveKills)
      problems.push(`${node} ran ${count} times with ${effectiveKills} kills`);
  }
  return {
    seed,
    threadId,
    kills,
    effectiveKills,
    finalResult,
    finalStatus,
    effects,
    durableAtKill: [...durable.keys()],
    killsWithFinishedTasksInStep,
    problems,
  };
}

/** Runs `trials` seeded trials, `concurrency` at a time. */
export async function crashTrials(
  worker: string,
  backend: CrashBackend,
  options: { trials: number; firstSeed: number; concurrency: number },
  reference: { result: unknown; runMs: number },
): Promise<TrialReport[]> {
  const seeds = Array.from({ length: options.trials }, (_, index) => options.firstSeed + index);
  const reports: TrialReport[] = [];
  const lanes = Array.from({ length: options.concurrency }, async () => {
    for (let seed = seeds.shift(); seed !== undefined; seed = seeds.shift()) {
      reports.push(await crashTrial(worker, backend, seed, reference));
    }
  });
  await Promise.all(lanes);
  return reports.sort((a, b) => a.seed - b.seed);
}

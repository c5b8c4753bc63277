/**
 * The crash-test harness: runs the crash graph in child processes that kill themselves with
 * SIGKILL at seeded kill points (see worker.ts: before and after a node's effect, before a save,
 * inside the commit, after the save returned), checks the database after each kill (every
 * checkpoint readable, every step the child saw durable present), resumes in a fresh process,
 * and compares the outcome with an uninterrupted run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { DurableSaver } from "../../../src/checkpoint/index.js";
import { seededRandom } from "../../../src/runtime/index.js";
import { buildScript, repoRoot } from "../support/child-script.js";
import { CRASH_NODES, SENDS } from "./crash-graph.js";

/**
 * Bundles the worker once (support/child-script.ts): a child then starts in a fraction of the
 * time `tsx` needs, which is what lets 50 trials per dialect fit in the test budget.
 */
export async function buildWorker(): Promise<string> {
  return (await buildScript("crash/worker.ts")).path;
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

/** The runtime's seeded PRNG (mulberry32): the same seed gives the same kill instants. */
export { seededRandom };

interface ChildOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Checkpoint ids whose save had returned (durable) before the child died or ended. */
  durable: string[];
  /** The kill point the child died at (`kill <kind>`), if it did. */
  killKind: string | undefined;
  /** Kill points the child passed (printed when it ends normally). */
  events: number | undefined;
}

/** Runs the worker; it kills itself at kill point `killAt` (1-based) when given. */
function runWorker(
  worker: string,
  backend: CrashBackend,
  threadId: string,
  killAt?: number,
): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(
      process.execPath,
      [worker, backend.dialect, backend.db, backend.effects, threadId],
      {
        cwd: repoRoot,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, KEEL_CRASH_KILL_AT: killAt === undefined ? "" : String(killAt) },
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (exitCode, signal) => {
      const lines = stdout.split("\n");
      const durable = lines.filter((l) => l.startsWith("durable ")).map((l) => l.slice(8));
      const killKind = lines.find((l) => l.startsWith("kill "))?.slice(5);
      const events = lines.find((l) => l.startsWith("events "));
      resolve({
        exitCode,
        signal,
        stdout,
        stderr,
        durable,
        killKind,
        events: events === undefined ? undefined : Number(events.slice(7)),
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
  /** The kill point of each effective kill (`node-start`, `mid-commit`, …). */
  killKinds: string[];
  finalResult: unknown;
  finalStatus: string;
  effects: Record<string, number>;
  /** Tasks (`node@taskId`) whose writes were durable at some kill: they must never run again. */
  durableAtKill: string[];
  /** Kills after which a task of an unfinished step already had its writes durable. */
  killsWithFinishedTasksInStep: number;
  /** Checkpoints a killed child had seen saved (each must be there after the kill). */
  durableCheckpoints: number;
  /** Problems found; empty means the trial passed. */
  problems: string[];
}

/** The uninterrupted reference run: its final state and how many kill points it passes. */
export async function referenceRun(
  worker: string,
  backend: CrashBackend,
): Promise<{ result: unknown; events: number }> {
  const outcome = await runWorker(worker, backend, `crash-reference-${process.pid}`);
  if (outcome.exitCode !== 0 || outcome.events === undefined)
    throw new Error(`reference run failed: ${outcome.stderr}`);
  const final = JSON.parse(outcome.stdout.trim().split("\n").pop() ?? "{}") as { result: unknown };
  return { result: final.result, events: outcome.events };
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
): Promise<{ done: Set<string>; inUnfinishedStep: number; ids: Set<string> }> {
  const done = new Set<string>();
  const ids = new Set<string>();
  let inUnfinishedStep = 0;
  let latest = true;
  // The crash graph has no subgraph: the root namespace is every checkpoint of the thread.
  for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) {
    ids.add(tuple.checkpoint.id);
    for (const [taskId, channel] of tuple.pendingWrites) {
      if (channel.startsWith("__") || done.has(taskId)) continue;
      done.add(taskId);
      // Writes against the latest checkpoint belong to a step the kill interrupted.
      if (latest) inUnfinishedStep++;
    }
    latest = false;
  }
  return { done, inUnfinishedStep, ids };
}

/** Where two states first differ (a key, or an index of a list), or undefined when equal. */
function firstDifference(expected: unknown, actual: unknown, path = "state"): string | undefined {
  if (canonical(expected) === canonical(actual)) return undefined;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      const found = firstDifference(expected[i], actual[i], `${path}[${i}]`);
      if (found) return found;
    }
  }
  if (typeof expected === "object" && expected && typeof actual === "object" && actual) {
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const found = firstDifference(
        (expected as Record<string, unknown>)[key],
        (actual as Record<string, unknown>)[key],
        `${path}.${key}`,
      );
      if (found) return found;
    }
  }
  return `${path}: expected ${JSON.stringify(expected)?.slice(0, 120)}, got ${JSON.stringify(actual)?.slice(0, 120)}`;
}

/** JSON with object keys sorted (a state read back lists its channels in another order). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1)))
      : item,
  );
}

/** The checkpoint ids of a thread's root namespace. */
async function checkpointIds(saver: DurableSaver, threadId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const tuple of saver.list({
    configurable: { thread_id: threadId, checkpoint_ns: "" },
  }))
    ids.add(tuple.checkpoint.id);
  return ids;
}

/**
 * One trial: 1–2 SIGKILLs at seeded kill points (the first anywhere in the run, the second in the
 * first half of what the resumed run has left), then a resume that must finish.
 */
export async function crashTrial(
  worker: string,
  backend: CrashBackend,
  seed: number,
  reference: { result: unknown; events: number },
): Promise<TrialReport> {
  const random = seededRandom(seed);
  const threadId = `crash-${backend.dialect}-${process.pid}-${seed}`;
  const kills = random() < 0.35 ? 2 : 1;
  const problems: string[] = [];
  /** `node@taskId` → its effect count when its writes were first seen durable after a kill. */
  const durable = new Map<string, number>();
  /** Every checkpoint a child saw saved: each must survive every later kill and the resume. */
  const saved = new Set<string>();
  const killKinds: string[] = [];
  let effectiveKills = 0;
  let killsWithFinishedTasksInStep = 0;
  for (let kill = 0; kill < kills; kill++) {
    const span = kill === 0 ? reference.events : Math.max(1, reference.events >> 1);
    const killAt = 1 + Math.floor(random() * span);
    const outcome = await runWorker(worker, backend, threadId, killAt);
    for (const id of outcome.durable) saved.add(id);
    if (outcome.signal === "SIGKILL") {
      effectiveKills++;
      killKinds.push(outcome.killKind ?? "unknown");
    } else if (outcome.exitCode !== 0)
      problems.push(`run ${kill} failed: ${outcome.stderr.slice(0, 500)}`);
    try {
      const { done, inUnfinishedStep, ids } = await durableTasks(backend.saver, threadId);
      for (const id of saved)
        if (!ids.has(id))
          problems.push(`checkpoint ${id} was durable before kill ${kill} and is gone after it`);
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
  try {
    const present = await checkpointIds(backend.saver, threadId);
    for (const id of [...saved, ...final.durable])
      if (!present.has(id)) problems.push(`checkpoint ${id} was durable and is gone at the end`);
  } catch (error) {
    problems.push(`unreadable checkpoint at the end: ${String(error)}`);
  }
  if (final.exitCode === 0) {
    const difference = firstDifference(reference.result, finalResult);
    if (difference) problems.push(`final state differs from the uninterrupted run: ${difference}`);
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
    const once = node === "sent" ? SENDS : 1;
    if (count < once) problems.push(`${node} ran ${count} times, fewer than ${once}`);
    if (count > once * (1 + effectiveKills))
      problems.push(`${node} ran ${count} times with ${effectiveKills} kills`);
  }
  return {
    seed,
    threadId,
    kills,
    effectiveKills,
    killKinds,
    finalResult,
    finalStatus,
    effects,
    durableAtKill: [...durable.keys()],
    killsWithFinishedTasksInStep,
    durableCheckpoints: saved.size,
    problems,
  };
}

/** Runs `trials` seeded trials, `concurrency` at a time. */
export async function crashTrials(
  worker: string,
  backend: CrashBackend,
  options: { trials: number; firstSeed: number; concurrency: number },
  reference: { result: unknown; events: number },
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

/** Kill points every run of 50 trials must have landed on at least once. */
export const KILL_KINDS = ["node-start", "node-effect", "put", "mid-commit", "durable"];

/**
 * What the crash test requires of a set of trials: no trial with a problem, every final state the
 * reference's, and kills that prove something (they landed inside runs, at every kind of kill
 * point, some after a step was durable, some after a task of an unfinished step had finished).
 */
export function summarise(
  reports: readonly TrialReport[],
  reference: { result: unknown },
): {
  failures: Array<{ seed: number; status: string; problems: string[] }>;
  wrongResults: number[];
  landed: number;
  kinds: Record<string, number>;
  withDurableCheckpoints: number;
  withDurableTasks: number;
  earlyDurable: number;
} {
  const kinds: Record<string, number> = {};
  for (const report of reports)
    for (const kind of report.killKinds) kinds[kind] = (kinds[kind] ?? 0) + 1;
  return {
    failures: reports
      .filter((report) => report.problems.length > 0 || report.finalStatus !== "succeeded")
      .map((f) => ({ seed: f.seed, status: f.finalStatus, problems: f.problems })),
    wrongResults: reports
      .filter((report) => canonical(report.finalResult) !== canonical(reference.result))
      .map((report) => report.seed),
    landed: reports.reduce((sum, report) => sum + report.effectiveKills, 0),
    kinds,
    withDurableCheckpoints: reports.filter((report) => report.durableCheckpoints > 0).length,
    withDurableTasks: reports.filter((report) => report.durableAtKill.length > 0).length,
    earlyDurable: reports.reduce((n, report) => n + report.killsWithFinishedTasksInStep, 0),
  };
}

import type { Command } from "commander";
import {
  type DurableSaver,
  type RunRecord,
  RunStore,
  type ThreadSummary,
} from "../../checkpoint/index.js";
import { KeelError, toKeelError } from "../../core/index.js";
import { loadPluginPacks, type PackSource } from "../../ir/index.js";
import { continueGovernedRun, loadGrant, runtimeDb } from "../../runtime/index.js";
import { discoverStorePlugins, type Store } from "../../store/index.js";
import { pc } from "../colors.js";
import type { CliModule } from "../command.js";
import { printResult, reportError, table } from "../output.js";
import {
  confirm,
  openCliStore,
  openReadCliStore,
  outputOptions,
  type StoreCliOptions,
  withStoreOptions,
} from "../scope.js";
import { humanTime } from "../when.js";
import { continueAnyDocumentRun, parseJsonOption, printDocumentRun } from "./document-runs.js";
import { registerRunsRecover } from "./runs-recover.js";
import { registerRunsReplay } from "./runs-replay.js";
import { continuationJson, describeContinuation } from "./runtime-cli.js";
import { saverFor } from "./saver-for.js";

interface ListFlags extends StoreCliOptions {
  limit?: string;
  after?: string;
}
interface PruneFlags extends StoreCliOptions {
  keepLast?: string;
  olderThan?: string;
  all?: boolean;
}
interface DeleteFlags extends StoreCliOptions {
  force?: boolean;
}
interface CancelFlags extends StoreCliOptions {
  reason?: string;
}
interface RespondFlags extends StoreCliOptions {
  value: string;
  capability?: string[];
}

/**
 * `keel runs list|show|history|resume|replay|respond|wake|prune|cancel|delete`: durable threads, their runs
 * and checkpoints.
 */
export const runsCommands: CliModule = {
  register(program: Command): void {
    const runs = program
      .command("runs")
      .description("Durable runs: threads, their run records and checkpoint history.");

    withStoreOptions(
      runs
        .command("list")
        .description("Threads, most recently active first, with their latest run.")
        .option("--limit <n>", "threads per page (default 50)")
        .option("--after <cursor>", "the `next` cursor a previous page printed"),
    ).action((flags: ListFlags) =>
      withSaver(
        flags,
        async ({ saver, runStore }, options) => {
          const limit = positiveInt(flags.limit ?? "50", "--limit");
          const threads = await saver.listThreads({ limit, ...afterCursor(flags.after) });
          const latest = await runStore.latestByThread(threads.map((t) => t.threadId));
          const now = Date.now();
          const rows = threads.map((thread) => {
            const run = latest.get(thread.threadId);
            return { ...thread, latestRun: run ? withWake(run, now) : null };
          });
          const last = threads.at(-1);
          const next =
            last && threads.length === limit ? `${last.updatedAt}:${last.threadId}` : null;
          printResult(options, { ok: true, threads: rows, next }, () =>
            [
              table(
                ["thread", "run status", "latest checkpoint", "updated", "lease", "wakes"],
                rows.map((row) => [
                  row.threadId,
                  row.latestRun?.status ?? "-",
                  row.latestCheckpointId ?? "-",
                  iso(row.updatedAt),
                  leaseText(row),
                  wakeText(row.latestRun),
                ]),
              ),
              rows.some((row) => row.latestRun?.timedOut)
                ? pc.yellow("timed-out interrupts: `keel runs wake` applies their on_timeout")
                : "",
              next ? pc.dim(`next page: keel runs list --after ${next}`) : "",
            ]
              .filter(Boolean)
              .join("\n"),
          );
        },
        { readOnly: true },
      ),
    );

    withStoreOptions(
      runs
        .command("show <thread>")
        .description("One thread: its latest state and its runs.")
        .option("--internal", "also show the runtime's own channels (`__ir…`) in the state"),
    ).action((threadId: string, flags: StoreCliOptions & { internal?: boolean }) =>
      withSaver(
        flags,
        async ({ saver, runStore }, options) => {
          const thread = await saver.getThread(threadId);
          const latest = await saver.getTuple({ configurable: { thread_id: threadId } });
          const now = Date.now();
          const runList = (await runStore.list({ threadId, limit: 20 })).map((run) =>
            withWake(run, now),
          );
          const state = latest
            ? {
                checkpointId: latest.checkpoint.id,
                step: latest.metadata.step,
                source: latest.metadata.source,
                createdAt: latest.checkpoint.ts,
                values: flags.internal
                  ? latest.checkpoint.channel_values
                  : withoutInternalChannels(latest.checkpoint.channel_values),
                pendingWrites: latest.pendingWrites.length,
                interrupted: latest.pendingWrites.some(
                  ([, channel]) => channel === "__interrupt__",
                ),
              }
            : null;
          printResult(options, { ok: true, thread, state, runs: runList }, () =>
            [
              `${pc.bold("thread")} ${thread.threadId}  ${pc.dim(`${thread.checkpointCount} checkpoints, updated ${iso(thread.updatedAt)}, lease ${leaseText(thread)}`)}`,
              state
                ? `${pc.bold("latest")} step ${state.step} (${state.source}) ${state.checkpointId}${state.interrupted ? pc.yellow(" — paused at an interrupt") : ""}`
                : "no checkpoint yet",
              state ? `${pc.bold("state")} ${truncate(JSON.stringify(state.values), 400)}` : "",
              runList.length
                ? table(
                    ["run", "status", "trace", "started", "finished", "wakes", "error"],
                    runList.map((run) => [
                      run.id,
                      run.status,
                      run.traceId,
                      run.startedAt ? iso(run.startedAt) : "-",
                      run.finishedAt ? iso(run.finishedAt) : "-",
                      wakeText(run),
                      run.error ? truncate(`${run.error.code}: ${run.error.message}`, 60) : "",
                    ]),
                  )
                : "no run records",
              runList.some((run) => run.timedOut)
                ? pc.yellow(
                    `the interrupt timed out: \`keel runs resume ${runList.find((run) => run.timedOut)?.id}\` takes its on_timeout`,
                  )
                : "",
            ]
              .filter(Boolean)
              .join("\n"),
          );
        },
        { readOnly: true },
      ),
    );

    withStoreOptions(
      runs
        .command("history <thread>")
        .description("A thread's checkpoints, newest first.")
        .option("--limit <n>", "at most this many (default 50)"),
    ).action((threadId: string, flags: ListFlags) =>
      withSaver(flags, async ({ saver }, options) => {
        await saver.getThread(threadId);
        const limit = positiveInt(flags.limit ?? "50", "--limit");
        const history: Array<{
          checkpointId: string;
          checkpointNs: string;
          parentId: string | null;
          step: number;
          source: string;
          createdAt: string;
          wrote: string[];
        }> = [];
        for await (const tuple of saver.list(
          { configurable: { thread_id: threadId } },
          { limit },
        )) {
          history.push({
            checkpointId: tuple.checkpoint.id,
            checkpointNs: tuple.config.configurable.checkpoint_ns,
            parentId: tuple.parentConfig?.configurable?.checkpoint_id ?? null,
            step: tuple.metadata.step,
            source: tuple.metadata.source,
            createdAt: tuple.checkpoint.ts,
            wrote: tuple.metadata.writes ? Object.keys(tuple.metadata.writes) : [],
          });
        }
        printResult(options, { ok: true, threadId, checkpoints: history }, () =>
          table(
            ["checkpoint", "ns", "step", "source", "created", "nodes that wrote"],
            history.map((h) => [
              h.checkpointId,
              h.checkpointNs || "-",
              String(h.step),
              h.source,
              humanTime(h.createdAt),
              h.wrote.join(", "),
            ]),
          ),
        );
      }),
    );

    withStoreOptions(
      runs
        .command("resume <run>")
        .description(
          "Continue a paused, crashed or failed run of `keel run` from its checkpoint, with the document it ran; or a paused governed run, with the application module it recorded.",
        ),
    ).action((runId: string, flags: StoreCliOptions) =>
      withSaver(flags, async ({ saver, store }, options) => {
        if ((await loadGrant(runtimeDb(store), runId)) && !(await hasDocument(saver, runId))) {
          const run = await continueGovernedRun(store, runId);
          printResult(options, { ok: true, run: continuationJson(run) }, () =>
            describeContinuation(run),
          );
          return;
        }
        printDocumentRun(
          options,
          await continueAnyDocumentRun(store, runId, null, await pluginPacksOf(store)),
        );
      }),
    );

    registerRunsReplay(runs);
    registerRunsRecover(runs);

    withStoreOptions(
      runs
        .command("respond <run>")
        .description("Answer the interrupt a run of `keel run` is waiting at, and continue it.")
        .requiredOption("--value <json>", "the answer (JSON)")
        .option(
          "--capability <name...>",
          "capabilities you hold (the interrupt's requested_capability must be among them)",
        ),
    ).action((runId: string, flags: RespondFlags) =>
      withSaver(flags, async ({ store }, options) => {
        const value = parseJsonOption(flags.value, "--value");
        printDocumentRun(
          options,
          await continueAnyDocumentRun(
            store,
            runId,
            { value, capabilities: flags.capability ?? [] },
            await pluginPacksOf(store),
          ),
        );
      }),
    );

    withStoreOptions(
      runs
        .command("wake")
        .description(
          "Continue every paused run of `keel run` whose interrupt timed out: each takes its on_timeout.",
        )
        .option("--limit <n>", "at most this many runs (default 100)"),
    ).action((flags: ListFlags) =>
      withSaver(flags, async ({ saver, runStore, store }, options) => {
        const limit = positiveInt(flags.limit ?? "100", "--limit");
        const packs = await pluginPacksOf(store);
        // Runs of `keel run` only (they have a document): other paused runs wake their own way.
        const rows = await saver.sql.all<{ id: string }>(
          `SELECT r.id FROM state_runs r JOIN state_run_documents d ON d.run_id = r.id
           WHERE r.status = 'paused' AND r.next_wake_at IS NOT NULL AND r.next_wake_at < ?
           ORDER BY r.next_wake_at, r.id LIMIT ${limit}`,
          [Date.now()],
        );
        const due = await Promise.all(rows.map((row) => runStore.get(row.id)));
        const woken: Array<{ runId: string; threadId: string; status: string; error?: string }> =
          [];
        for (const run of due) {
          try {
            const outcome = await continueAnyDocumentRun(store, run.id, null, packs);
            woken.push({ runId: run.id, threadId: run.threadId, status: outcome.run.status });
          } catch (error) {
            const failure = toKeelError(error);
            woken.push({
              runId: run.id,
              threadId: run.threadId,
              status: "error",
              error: `${failure.code}: ${failure.message}`,
            });
          }
        }
        const failed = woken.filter((w) => w.status === "error").length;
        printResult(options, { ok: failed === 0, runs: woken }, () =>
          woken.length === 0
            ? "no run is past its wake time"
            : table(
                ["run", "thread", "now", "error"],
                woken.map((w) => [w.runId, w.threadId, w.status, w.error ?? ""]),
              ),
        );
        if (failed > 0) process.exitCode = 2;
      }),
    );

    withStoreOptions(
      runs
        .command("prune [thread]")
        .description("Delete old checkpoints (the latest of each thread is always kept).")
        .option("--keep-last <n>", "keep this many newest checkpoints per thread")
        .option("--older-than <age>", "delete checkpoints older than this (e.g. 30d, 12h, 15m)")
        .option("--all", "prune every thread"),
    ).action((threadId: string | undefined, flags: PruneFlags) =>
      withSaver(flags, async ({ saver }, options) => {
        const pruneOptions = {
          ...(flags.keepLast !== undefined
            ? { keepLast: positiveInt(flags.keepLast, "--keep-last") }
            : {}),
          ...(flags.olderThan !== undefined
            ? { olderThan: Date.now() - parseAge(flags.olderThan) }
            : {}),
        };
        if ((threadId === undefined) === !flags.all) {
          throw new KeelError("INVALID_ARGUMENT", "Name one thread, or pass --all (not both).", {
            hint: "Example: keel runs prune --all --keep-last 20",
          });
        }
        const threadIds = threadId ? [threadId] : await allThreadIds(saver);
        const results = [];
        // With --all, a thread this Keel cannot read (a newer format, a corrupted row) is left
        // whole and reported, and the others are pruned; the exit code is then that error's (2),
        // so a scheduled prune does not hide it. A thread deleted since the listing is passed
        // over. One named thread fails with the error.
        const skipped: Array<{ threadId: string; code: string; message: string }> = [];
        for (const id of threadIds) {
          try {
            results.push(await saver.prune(id, pruneOptions));
          } catch (error) {
            const code = (error as { code?: unknown }).code;
            if (!threadId && code === "THREAD_NOT_FOUND") continue;
            if (threadId || (code !== "CHECKPOINT_FORMAT" && code !== "CHECKPOINT_CORRUPT"))
              throw error;
            skipped.push({ threadId: id, code, message: (error as Error).message });
          }
        }
        if (skipped.length > 0) process.exitCode = 2;
        const total = results.reduce((sum, r) => sum + r.checkpointsDeleted, 0);
        printResult(options, { ok: skipped.length === 0, results, skipped }, () =>
          [
            `${pc.green("pruned")} ${total} checkpoint(s) from ${results.length} thread(s)`,
            ...skipped.map((s) => pc.yellow(`not pruned: ${s.threadId}: ${s.message}`)),
          ].join("\n"),
        );
      }),
    );

    withStoreOptions(
      runs
        .command("cancel <run>")
        .description(
          "Cancel a run: record it canceled and stop it before its next step (a process executing it sees the cancel within a second).",
        )
        .option("--reason <text>", "why, recorded on the run"),
    ).action((runId: string, flags: CancelFlags) =>
      withSaver(flags, async ({ runStore }, options) => {
        const run = await runStore.cancel(runId, flags.reason ?? "canceled with keel runs cancel");
        printResult(
          options,
          { ok: true, run },
          () => `${pc.yellow("canceled")} run ${run.id} of thread ${run.threadId}`,
        );
      }),
    );

    withStoreOptions(
      runs
        .command("delete <thread>")
        .description("Delete a thread: its checkpoints, values, writes and run records.")
        .option("--force", "do not ask for confirmation"),
    ).action((threadId: string, flags: DeleteFlags) =>
      withSaver(flags, async ({ saver }, options) => {
        const thread = await saver.getThread(threadId);
        if (thread.leaseOwner && (thread.leaseExpiresAt ?? 0) > Date.now()) {
          throw new KeelError(
            "THREAD_LEASED",
            `Thread "${threadId}" is being run by ${thread.leaseOwner}; not deleted.`,
            {
              details: {
                threadId,
                leaseOwner: thread.leaseOwner,
                leaseExpiresAt: thread.leaseExpiresAt,
              },
              hint: "Wait for the run to finish (or its lease to expire), then delete.",
            },
          );
        }
        await confirm(
          { ...options, force: flags.force },
          `Delete thread "${threadId}" and its ${thread.checkpointCount} checkpoint(s)?`,
        );
        // Runs and thread in one transaction.
        const { runsDeleted } = await saver.deleteThreadAndRuns(threadId);
        printResult(
          options,
          { ok: true, threadId, checkpointsDeleted: thread.checkpointCount, runsDeleted },
          () =>
            `${pc.green("deleted")} thread ${threadId} (${thread.checkpointCount} checkpoint(s), ${runsDeleted} run record(s))`,
        );
      }),
    );
  },
};

/** A run record with `timedOut`: paused at an interrupt whose deadline (its wake time) passed. */
function withWake(run: RunRecord, now: number): RunRecord & { timedOut: boolean } {
  return {
    ...run,
    timedOut: run.status === "paused" && run.nextWakeAt !== null && run.nextWakeAt < now,
  };
}

function wakeText(run: (RunRecord & { timedOut: boolean }) | null): string {
  if (!run || run.nextWakeAt === null || run.status !== "paused") return "-";
  return run.timedOut ? pc.yellow(`timed out ${iso(run.nextWakeAt)}`) : iso(run.nextWakeAt);
}

/** The governance packs the scope's enabled plugins provide. */
async function pluginPacksOf(store: Store): Promise<Record<string, PackSource>> {
  return loadPluginPacks(await discoverStorePlugins(store));
}

/** A saver on the store of the verb's scope. */
export { saverFor };

/** Whether a run was started from a document (`keel run`). */
async function hasDocument(saver: DurableSaver, runId: string): Promise<boolean> {
  const rows = await saver.sql.all<{ run_id: string }>(
    "SELECT run_id FROM state_run_documents WHERE run_id = ?",
    [runId],
  );
  return rows.length > 0;
}

async function withSaver(
  flags: StoreCliOptions,
  fn: (
    ctx: { saver: DurableSaver; runStore: RunStore; store: Store },
    options: StoreCliOptions,
  ) => Promise<void>,
  mode: { readOnly?: boolean } = {},
): Promise<void> {
  const options = outputOptions(flags);
  try {
    // A verb that only reads opens read-only: it leaves nothing behind (see openReadCliStore).
    const store = mode.readOnly ? await openReadCliStore(options) : await openCliStore(options);
    try {
      const saver = saverFor(store);
      await fn({ saver, runStore: new RunStore(saver), store }, options);
      await saver.flush();
    } finally {
      await store.close();
    }
  } catch (error) {
    reportError(options, error);
  }
}

async function allThreadIds(saver: DurableSaver): Promise<string[]> {
  const ids: string[] = [];
  let after: ThreadSummary | undefined;
  for (;;) {
    const page = await saver.listThreads({ limit: 500, ...(after ? { after } : {}) });
    ids.push(...page.map((t) => t.threadId));
    if (page.length < 500) return ids;
    after = page.at(-1);
  }
}

function afterCursor(cursor: string | undefined): { after?: ThreadSummary } {
  if (cursor === undefined) return {};
  const colon = cursor.indexOf(":");
  const updatedAt = Number(cursor.slice(0, colon));
  if (colon < 1 || !Number.isFinite(updatedAt)) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `--after "${cursor}" is not a cursor printed by \`keel runs list\`.`,
    );
  }
  return {
    after: {
      threadId: cursor.slice(colon + 1),
      updatedAt,
      createdAt: 0,
      latestCheckpointId: null,
      checkpointCount: 0,
      leaseOwner: null,
      leaseExpiresAt: null,
    },
  };
}

function positiveInt(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `${flag} must be a whole number of at least 1, not "${text}".`,
    );
  }
  return value;
}

const AGE_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** "30d", "12h", "15m", "45s", "500ms" → milliseconds. */
export function parseAge(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) {
    throw new KeelError("INVALID_ARGUMENT", `--older-than "${text}" is not an age.`, {
      hint: "Use a number and a unit: 30d, 12h, 15m, 45s or 500ms.",
    });
  }
  return Number(match[1]) * (AGE_UNITS[match[2] ?? "ms"] ?? 1);
}

/**
 * The state as its author wrote it: an IR run's bookkeeping channels (`__ir`, `__ir_transitions`,
 * …) and the engine's branch channels (`branch:to:<node>`) are the runtime's, shown with
 * `--internal`.
 */
export function withoutInternalChannels(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).filter(([key]) => !key.startsWith("__") && !key.startsWith("branch:")),
  );
}

function iso(ms: number): string {
  return humanTime(ms);
}

function leaseText(thread: ThreadSummary): string {
  if (!thread.leaseOwner || (thread.leaseExpiresAt ?? 0) <= Date.now()) return "-";
  return `${thread.leaseOwner} until ${iso(thread.leaseExpiresAt ?? 0)}`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

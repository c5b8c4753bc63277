import { KeelError, newId, toKeelError } from "../../core/index.js";
import type { CheckpointConfig, Durability } from "../base/index.js";
import type { DurableSaver } from "../durable/durable-saver.js";
import { toInt, toIntOrNull } from "../durable/rows.js";
import type { SqlRunner } from "../durable/sql-runner.js";
import { acquireLease, releaseLease, releaseLeaseStatement, renewLease } from "./lease.js";
import {
  assertTransition,
  RUN_STATUSES,
  type RunError,
  type RunRecord,
  type RunStatus,
} from "./run-record.js";

/** What a new run records. */
export interface NewRun {
  threadId?: string;
  graphId?: string;
  traceId?: string;
  triggerEventId?: string;
  autonomyLevelAtStart?: string;
  labels?: string[];
}

/** A run's status change, as `RunStoreOptions.writeTransition` receives it. */
export interface RunTransition {
  previous: RunRecord;
  next: RunRecord;
  /** What caused it, when something did: the graph's result (a pause, an end) or its error. */
  cause: { result?: unknown; error?: unknown };
  /** The statement that records it: a compare-and-set on `previous.status` (`?` placeholders). */
  statement: { sql: string; params: unknown[] };
}

/** Options of `RunStore`. */
export interface RunStoreOptions {
  /** How long a lease lasts without renewal (default 30 s); renewed every third of that. */
  leaseTtlMs?: number;
  /**
   * Writes a status change in place of the store's own statement, so that a caller can commit it
   * with what records it (the governed runtime's `task.*` audit events, in one transaction).
   * Resolves to whether the row moved (false: another writer moved it first).
   */
  writeTransition?: (transition: RunTransition) => Promise<boolean>;
  /**
   * How often an executing run checks whether another process canceled it (default 1 s; a
   * cancel made in the same process stops it at once).
   */
  cancelPollMs?: number;
}

/** The abort controllers of the runs this process executes, so a cancel here stops them at once. */
const executing = new Map<string, AbortController>();

interface RawRun {
  id: string;
  thread_id: string;
  status: string;
  trace_id: string;
  graph_id: string | null;
  trigger_event_id: string | null;
  autonomy_level_at_start: string | null;
  labels_json: string;
  error_json: string | null;
  cancel_reason: string | null;
  next_wake_at: number | string | null;
  created_at: number | string;
  updated_at: number | string;
  started_at: number | string | null;
  finished_at: number | string | null;
}

const RUN_COLUMNS =
  "id, thread_id, status, trace_id, graph_id, trigger_event_id, autonomy_level_at_start, labels_json, " +
  "error_json, cancel_reason, next_wake_at, created_at, updated_at, started_at, finished_at";

/**
 * Run records on top of a durable saver: status, trace id, timestamps, last error, and the thread
 * lease that lets exactly one process execute (or resume) a thread at a time.
 *
 * @example
 * const runs = new RunStore(saver);
 * const run = await runs.create({ graphId: "triage" });
 * const { result } = await runs.execute(run.id, (config) => graph.invoke(input, config));
 */
export class RunStore {
  private readonly db: SqlRunner;
  private readonly leaseTtlMs: number;
  private readonly writeTransition: RunStoreOptions["writeTransition"];
  private readonly cancelPollMs: number;

  constructor(
    private readonly saver: DurableSaver,
    options: RunStoreOptions = {},
  ) {
    this.db = saver.sql;
    this.leaseTtlMs = options.leaseTtlMs ?? 30_000;
    this.writeTransition = options.writeTransition;
    this.cancelPollMs = Math.max(10, options.cancelPollMs ?? 1000);
  }

  /** Records a `pending` run (on a new thread unless `threadId` is given). */
  async create(run: NewRun = {}): Promise<RunRecord> {
    const record = this.draft(run);
    const insert = runInsertStatement(record);
    await this.db.run(insert.sql, insert.params);
    return record;
  }

  /**
   * A new `pending` run record, not yet stored: `runInsertStatement(record)` stores it, for a
   * caller that commits it together with records of its own.
   */
  draft(run: NewRun = {}): RunRecord {
    const now = this.now();
    return {
      id: newId(),
      threadId: run.threadId ?? newId(),
      status: "pending",
      traceId: run.traceId ?? newId(),
      graphId: run.graphId ?? null,
      triggerEventId: run.triggerEventId ?? null,
      autonomyLevelAtStart: run.autonomyLevelAtStart ?? null,
      labels: run.labels ?? [],
      error: null,
      cancelReason: null,
      nextWakeAt: null,
      createdAt: now,
      updatedAt: now,
      startedAt: null,
      finishedAt: null,
    };
  }

  /** A run, or RUN_NOT_FOUND. */
  async get(runId: string): Promise<RunRecord> {
    const rows = await this.db.all<RawRun>(`SELECT ${RUN_COLUMNS} FROM state_runs WHERE id = ?`, [
      runId,
    ]);
    if (!rows[0]) {
      throw new KeelError("RUN_NOT_FOUND", `No run "${runId}" in this database.`, {
        details: { runId },
        hint: "List runs with `keel runs list`.",
      });
    }
    return toRun(rows[0]);
  }

  /** Runs newest first, optionally of one thread or with one status (or any of several). */
  async list(
    query: { threadId?: string; status?: RunStatus | readonly RunStatus[]; limit?: number } = {},
  ): Promise<RunRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.threadId !== undefined) {
      where.push("thread_id = ?");
      params.push(query.threadId);
    }
    if (query.status !== undefined) {
      const statuses: readonly RunStatus[] =
        typeof query.status === "string" ? [query.status] : query.status;
      const bad = statuses.filter((status) => !RUN_STATUSES.includes(status));
      if (bad.length > 0 || statuses.length === 0) {
        throw new KeelError("INVALID_ARGUMENT", `Unknown run status "${bad.join(", ")}".`, {
          hint: `Use one of ${RUN_STATUSES.join(", ")}.`,
        });
      }
      where.push(`status IN (${statuses.map(() => "?").join(", ")})`);
      params.push(...statuses);
    }
    const limit = Math.max(1, Math.floor(query.limit ?? 50));
    const rows = await this.db.all<RawRun>(
      `SELECT ${RUN_COLUMNS} FROM state_runs${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
      params,
    );
    return rows.map(toRun);
  }

  /** The newest run of each given thread. */
  async latestByThread(threadIds: readonly string[]): Promise<Map<string, RunRecord>> {
    const latest = new Map<string, RunRecord>();
    if (threadIds.length === 0) return latest;
    const rows = await this.db.all<RawRun>(
      `SELECT ${RUN_COLUMNS} FROM state_runs WHERE thread_id IN (${threadIds.map(() => "?").join(", ")}) ORDER BY created_at DESC, id DESC`,
      threadIds,
    );
    for (const raw of rows) if (!latest.has(raw.thread_id)) latest.set(raw.thread_id, toRun(raw));
    return latest;
  }

  /**
   * Executes (or resumes) a run: takes the thread's lease (THREAD_LEASED if another live process
   * holds it), marks the run `running`, calls `invoke` with the thread's config, and records the
   * outcome — `paused` when the graph stopped at an interrupt (`interrupt()`, or a static
   * `interruptBefore`/`interruptAfter`), `succeeded`, or `failed` with the
   * error. The lease is renewed while `invoke` runs and released at the end. A run found
   * `running` (its process died) is resumed by whoever takes the lease; a `failed` run only with
   * `retry: true` (an explicit retry, which the caller audits).
   *
   * The config carries an abort `signal` that `cancel` fires (at once in this process, within
   * `cancelPollMs` from another): pass the config to `graph.invoke`, and a canceled run stops
   * before its next step; `execute` then rejects with ABORTED and the run stays `canceled`.
   */
  async execute<T>(
    runOrId: string | RunRecord,
    invoke: (
      config: CheckpointConfig & { configurable: { thread_id: string }; signal: AbortSignal },
    ) => Promise<T>,
    options: {
      durability?: Durability;
      retry?: boolean;
      /**
       * Says from `invoke`'s result whether the run paused at an interrupt, for a caller that
       * knows (else the latest checkpoint's interrupt writes are read).
       */
      paused?: (result: T) => boolean;
    } = {},
  ): Promise<{ run: RunRecord; result: T }> {
    // A record the caller just created saves reading it again; a stale one is caught by the
    // compare-and-set of the first transition.
    const run = typeof runOrId === "string" ? await this.get(runOrId) : runOrId;
    const retry = options.retry === true;
    if (run.status !== "running") assertTransition(run, "running", { retry });
    const owner = this.saver.ownerId;
    try {
      await acquireLease(this.db, run.threadId, owner, { now: this.now(), ttlMs: this.leaseTtlMs });
    } catch (error) {
      // A run that never started because another process holds its thread must not stay
      // `pending` (it would look queued forever): it failed, saying why.
      if (run.status === "pending") {
        const keel = toKeelError(error);
        await this.transition(
          run,
          "failed",
          { error: { code: keel.code, message: keel.message }, finishedAt: this.now() },
          {},
          { error },
        ).catch(() => {});
      }
      throw error;
    }
    const heartbeat = setInterval(
      () => {
        renewLease(this.db, run.threadId, owner, { now: this.now(), ttlMs: this.leaseTtlMs }).catch(
          () => {
            // A failed renewal shows up as THREAD_LEASED on the next commit.
          },
        );
      },
      Math.max(10, Math.floor(this.leaseTtlMs / 3)),
    );
    heartbeat.unref();
    const controller = new AbortController();
    executing.set(run.id, controller);
    let released = false;
    let committedLast = false;
    // A cancel from another process is seen by reading the run's status.
    const watch = setInterval(() => {
      this.get(run.id)
        .then((current) => {
          if (current.status === "canceled") controller.abort(canceled(current));
        })
        .catch(() => {});
    }, this.cancelPollMs);
    watch.unref();
    try {
      const running = await this.transition(
        run,
        "running",
        { startedAt: run.startedAt ?? this.now(), error: null },
        { retry },
      );
      // `durability` is the engine's invoke option (LangGraph.js's name and meaning).
      const config = {
        configurable: { thread_id: run.threadId },
        signal: controller.signal,
        ...(options.durability ? { durability: options.durability } : {}),
      };
      let result: T;
      try {
        result = await invoke(config);
        await this.saver.flush();
      } catch (thrown) {
        await this.saver.flush().catch(() => {});
        const current = await this.get(run.id);
        // Canceled: the record already says so; the caller learns it from ABORTED.
        if (current.status === "canceled") throw canceled(current, thrown);
        const error = toKeelError(thrown);
        await this.transition(
          running,
          "failed",
          { error: { code: error.code, message: error.message }, finishedAt: this.now() },
          {},
          { error: thrown },
        );
        throw thrown;
      }
      const paused = options.paused
        ? options.paused(result)
        : await this.pausedAfter(run.threadId, result);
      let finished: RunRecord;
      try {
        // The run's last status and the lease's release make one commit (when no hook writes
        // the transition): a crash between them would only leave a lease to expire.
        released = this.writeTransition === undefined;
        finished = await this.transition(
          running,
          paused ? "paused" : "succeeded",
          paused ? {} : { finishedAt: this.now() },
          {},
          { result },
          released ? [releaseLeaseStatement(run.threadId, owner)] : [],
        );
      } catch (error) {
        // Canceled after its last step: the run ended, but the record keeps the cancel.
        const current = await this.get(run.id);
        if (current.status === "canceled") return { run: current, result };
        throw error;
      }
      committedLast = true;
      return { run: finished, result };
    } finally {
      clearInterval(heartbeat);
      clearInterval(watch);
      if (executing.get(run.id) === controller) executing.delete(run.id);
      // Released with the last status unless that commit failed (then the lease is released here).
      if (!released || !committedLast)
        await releaseLease(this.db, run.threadId, owner).catch(() => {});
    }
  }

  /**
   * True when the graph stopped at an interrupt rather than at its end. The engine says so in
   * what `invoke` returns: `__interrupt__` (an empty list for a static `interruptBefore`/`After`
   * pause, which leaves no interrupt write); a caller whose `invoke` returns something else (a
   * consumed stream) is judged by the latest checkpoint's interrupt writes (dynamic interrupts).
   */
  private async pausedAfter(threadId: string, result: unknown): Promise<boolean> {
    if (
      typeof result === "object" &&
      result !== null &&
      Array.isArray((result as { __interrupt__?: unknown }).__interrupt__)
    )
      return true;
    const tuple = await this.saver.getTuple({ configurable: { thread_id: threadId } });
    return tuple?.pendingWrites.some(([, channel]) => channel === "__interrupt__") ?? false;
  }

  /**
   * Cancels a pending, paused or running run: records `canceled` (a finished run refuses with
   * RUN_INVALID_TRANSITION) and stops a running one — at once when this process executes it,
   * within `cancelPollMs` when another does — before its next step (see `execute`). The thread
   * keeps every checkpoint saved so far.
   */
  async cancel(runId: string, reason: string): Promise<RunRecord> {
    const run = await this.get(runId);
    const record = await this.transition(run, "canceled", {
      cancelReason: reason,
      finishedAt: this.now(),
    });
    executing.get(runId)?.abort(canceled(record));
    return record;
  }

  /** Deletes the run records of a thread (its checkpoints are deleted by the saver). */
  async deleteForThread(threadId: string): Promise<number> {
    return this.db.run("DELETE FROM state_runs WHERE thread_id = ?", [threadId]);
  }

  private async transition(
    run: RunRecord,
    to: RunStatus,
    fields: {
      startedAt?: number;
      finishedAt?: number;
      error?: RunError | null;
      cancelReason?: string;
    },
    options: { retry?: boolean } = {},
    cause: RunTransition["cause"] = {},
    /** Statements committed with the change (only without a `writeTransition` hook). */
    alongside: ReadonlyArray<{ sql: string; params: readonly unknown[] }> = [],
  ): Promise<RunRecord> {
    // A crashed run resumed stays `running`: not a move, only its lease changed hands.
    if (!(run.status === "running" && to === "running")) assertTransition(run, to, options);
    const now = this.now();
    const next: RunRecord = {
      ...run,
      status: to,
      updatedAt: now,
      ...(fields.startedAt !== undefined ? { startedAt: fields.startedAt } : {}),
      ...(fields.finishedAt !== undefined ? { finishedAt: fields.finishedAt } : {}),
      ...(fields.error !== undefined ? { error: fields.error } : {}),
      ...(fields.cancelReason !== undefined ? { cancelReason: fields.cancelReason } : {}),
    };
    // Compare-and-set on the status read, so two writers cannot both move the same run.
    const statement = runUpdateStatement(next, run.status);
    const changed = this.writeTransition
      ? Number(await this.writeTransition({ previous: run, next, cause, statement }))
      : alongside.length > 0
        ? ((await this.db.atomic([statement, ...alongside]))[0] ?? 0)
        : await this.db.run(statement.sql, statement.params);
    if (changed === 0) {
      const current = await this.get(run.id);
      throw new KeelError(
        "RUN_INVALID_TRANSITION",
        `Run ${run.id} changed under us (now ${current.status}); it was not moved to ${to}.`,
        { details: { runId: run.id, status: current.status, to } },
      );
    }
    return next;
  }

  private now(): number {
    return Date.now();
  }
}

/** ABORTED for a run that was canceled while it executed. */
function canceled(run: RunRecord, cause?: unknown): KeelError {
  return new KeelError(
    "ABORTED",
    `Run ${run.id} was canceled${run.cancelReason ? ` (${run.cancelReason})` : ""}; it stopped before its next step.`,
    {
      cause,
      details: { runId: run.id, threadId: run.threadId, reason: run.cancelReason },
      hint: "Its checkpoints so far are kept: `keel runs show` prints where it stopped.",
    },
  );
}

/** The statement that stores a new run record (`?` placeholders). */
export function runInsertStatement(record: RunRecord): { sql: string; params: unknown[] } {
  return {
    sql: `INSERT INTO state_runs (${RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    params: [
      record.id,
      record.threadId,
      record.status,
      record.traceId,
      record.graphId,
      record.triggerEventId,
      record.autonomyLevelAtStart,
      JSON.stringify(record.labels),
      record.error ? JSON.stringify(record.error) : null,
      record.cancelReason,
      record.nextWakeAt,
      record.createdAt,
      record.updatedAt,
      record.startedAt,
      record.finishedAt,
    ],
  };
}

/** The compare-and-set that moves a run to `next` if it is still `from` (`?` placeholders). */
export function runUpdateStatement(
  next: RunRecord,
  from: RunStatus,
): { sql: string; params: unknown[] } {
  return {
    sql: "UPDATE state_runs SET status = ?, updated_at = ?, started_at = ?, finished_at = ?, error_json = ?, cancel_reason = ? WHERE id = ? AND status = ?",
    params: [
      next.status,
      next.updatedAt,
      next.startedAt,
      next.finishedAt,
      next.error ? JSON.stringify(next.error) : null,
      next.cancelReason,
      next.id,
      from,
    ],
  };
}

function toRun(raw: RawRun): RunRecord {
  return {
    id: raw.id,
    threadId: raw.thread_id,
    status: raw.status as RunStatus,
    traceId: raw.trace_id,
    graphId: raw.graph_id,
    triggerEventId: raw.trigger_event_id,
    autonomyLevelAtStart: raw.autonomy_level_at_start,
    labels: JSON.parse(raw.labels_json) as string[],
    error: raw.error_json ? (JSON.parse(raw.error_json) as RunError) : null,
    cancelReason: raw.cancel_reason,
    nextWakeAt: toIntOrNull(raw.next_wake_at),
    createdAt: toInt(raw.created_at),
    updatedAt: toInt(raw.updated_at),
    startedAt: toIntOrNull(raw.started_at),
    finishedAt: toIntOrNull(raw.finished_at),
  };
}

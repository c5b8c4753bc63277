import { sql } from "kysely";
import { RUN_STATUSES } from "../checkpoint/index.js";
import { runtimeDb } from "../runtime/index.js";
import type { Store } from "../store/index.js";
import type { EventBus } from "./events.js";

/** How far back each look reaches, so a change committed just before the last look is not missed. */
const OVERLAP_MS = 5_000;

const JOB_EVENTS: Record<string, string> = {
  queued: "job.queued",
  running: "job.claimed",
  completed: "job.completed",
  failed: "job.failed",
};

/** The channel event of a run's status, for runs this server does not execute. */
const RUN_EVENTS: Record<string, string> = {
  pending: "run.created",
  running: "run.started",
  paused: "run.paused",
  succeeded: "run.finished",
  failed: "run.finished",
  canceled: "run.canceled",
};

/**
 * Turns changes made by any process on the database into channel events: jobs queued, claimed
 * and finished (`keel job submit`, workers, the API), approvals requested and decided (a governed
 * run anywhere, `keel approvals approve`, the API), approvals that expire (when their time
 * passes: the row is marked `expired` only when someone next reads it, and that mark moves no
 * timestamp), runs this server does not execute (`keel run`, a worker, a governed run continued
 * by an approval: their status changes, from `updated_at`), and a new scan (`keel scan`). It looks every
 * `intervalMs` (and at once after the API changes something: `poke`), reading only rows whose
 * timestamps moved since its last look; each change is published once.
 */
export class ChangeWatcher {
  private timer: NodeJS.Timeout | undefined;
  private since = 0;
  private scannedAt: number | null = null;
  private readonly seen = new Map<string, string>();
  private running: Promise<void> | undefined;
  private again = false;
  private primed = false;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    private readonly intervalMs = 1000,
    /** Runs this server executes: their events come from the run manager, not from here. */
    private readonly executedHere: (runId: string) => boolean = () => false,
  ) {}

  /** Takes the current state as known (nothing is published for it) and starts looking. */
  async start(): Promise<void> {
    await this.look();
    this.primed = true;
    this.timer = setInterval(() => this.poke(), this.intervalMs);
    this.timer.unref();
  }

  /** Looks now (coalesced with a look in progress). */
  poke(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.look();
        } while (this.again);
      } catch {
        // A failed look (database busy, closing) is retried at the next tick.
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private publish(type: string, data: Record<string, unknown>): void {
    if (this.primed) this.bus.publish(type, data);
  }

  private async look(): Promise<void> {
    const now = Date.now();
    const from = this.since - OVERLAP_MS;
    const db = this.store.kysely;
    const [jobs, approvals, due, runs, scan] = await Promise.all([
      db
        .selectFrom("state_jobs")
        .select(["id", "status", "failure_reason", "action_id", "node_id"])
        .where((eb) =>
          eb.or([
            eb("created_at", ">=", from),
            eb("claimed_at", ">=", from),
            eb("finished_at", ">=", from),
          ]),
        )
        .orderBy("created_at")
        .execute(),
      runtimeDb(this.store)
        .selectFrom("state_approvals")
        .select(["id", "status", "task_id", "what_json", "decided_by", "expires_at"])
        .where((eb) => eb.or([eb("created_at", ">=", from), eb("decided_at", ">=", from)]))
        .orderBy("created_at")
        .execute(),
      // Pending approvals whose expiry passed since the last look: expired, marked or not.
      runtimeDb(this.store)
        .selectFrom("state_approvals")
        .select(["id", "task_id", "what_json"])
        .where("status", "=", "pending")
        .where("expires_at", ">=", from)
        .where("expires_at", "<=", now)
        .execute(),
      // Every status, so that the (status, updated_at) index serves the range.
      sql<{ id: string; status: string; thread_id: string; error_json: string | null }>`
        SELECT id, status, thread_id, error_json FROM state_runs
        WHERE status IN (${sql.join([...RUN_STATUSES])}) AND updated_at >= ${from}
        ORDER BY updated_at`
        .execute(db)
        .then((result) => result.rows),
      db
        .selectFrom("scan_results")
        .select(["scanned_at", "files_walked_count"])
        .where("id", "=", 1)
        .executeTakeFirst(),
    ]);
    const current = new Set<string>();
    for (const job of jobs) {
      const key = `job:${job.id}`;
      current.add(key);
      if (this.seen.get(key) === job.status) continue;
      this.seen.set(key, job.status);
      this.publish(JOB_EVENTS[job.status] ?? `job.${job.status}`, {
        job_id: job.id,
        status: job.status,
        action: job.action_id,
        node: job.node_id,
        ...(job.failure_reason ? { reason: job.failure_reason } : {}),
      });
    }
    for (const approval of approvals) {
      const key = `approval:${approval.id}`;
      current.add(key);
      // A pending approval past its expiry is expired, whether or not the row says so yet.
      const status =
        approval.status === "pending" && Number(approval.expires_at) <= now
          ? "expired"
          : approval.status;
      if (this.seen.get(key) === status) continue;
      this.seen.set(key, status);
      const what = JSON.parse(approval.what_json) as { tool?: unknown };
      this.publish(status === "pending" ? "approval.requested" : `approval.${status}`, {
        approval_id: approval.id,
        run_id: approval.task_id,
        status,
        tool: typeof what.tool === "string" ? what.tool : null,
        ...(approval.decided_by ? { by: approval.decided_by } : {}),
      });
    }
    for (const approval of due) {
      const key = `approval:${approval.id}`;
      current.add(key);
      if (this.seen.get(key) === "expired") continue;
      this.seen.set(key, "expired");
      const what = JSON.parse(approval.what_json) as { tool?: unknown };
      this.publish("approval.expired", {
        approval_id: approval.id,
        run_id: approval.task_id,
        status: "expired",
        tool: typeof what.tool === "string" ? what.tool : null,
      });
    }
    for (const run of runs) {
      if (this.executedHere(run.id)) continue;
      const key = `run:${run.id}`;
      current.add(key);
      if (this.seen.get(key) === run.status) continue;
      this.seen.set(key, run.status);
      const error = run.error_json ? (JSON.parse(run.error_json) as unknown) : null;
      this.publish(RUN_EVENTS[run.status] ?? `run.${run.status}`, {
        run_id: run.id,
        thread_id: run.thread_id,
        status: run.status,
        ...(error ? { error } : {}),
      });
    }
    // Rows that left the window changed nothing since: forget them (the map stays small).
    for (const key of this.seen.keys()) if (!current.has(key)) this.seen.delete(key);
    const scannedAt = scan ? Number(scan.scanned_at) : null;
    if (scannedAt !== this.scannedAt) {
      this.scannedAt = scannedAt;
      if (scannedAt !== null) this.publish("scan.changed", { scanned_at: scannedAt });
    }
    this.since = now;
  }
}

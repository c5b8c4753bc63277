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

/**
 * Turns changes made by any process on the database into channel events: jobs queued, claimed
 * and finished (`keel job submit`, workers, the API), approvals requested and decided (a governed
 * run anywhere, `keel approvals approve`, the API), and a new scan (`keel scan`). It looks every
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
    const [jobs, approvals, scan] = await Promise.all([
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
        .select(["id", "status", "task_id", "what_json", "decided_by"])
        .where((eb) => eb.or([eb("created_at", ">=", from), eb("decided_at", ">=", from)]))
        .orderBy("created_at")
        .execute(),
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
      if (this.seen.get(key) === approval.status) continue;
      this.seen.set(key, approval.status);
      const what = JSON.parse(approval.what_json) as { tool?: unknown };
      this.publish(
        approval.status === "pending" ? "approval.requested" : `approval.${approval.status}`,
        {
          approval_id: approval.id,
          run_id: approval.task_id,
          status: approval.status,
          tool: typeof what.tool === "string" ? what.tool : null,
          ...(approval.decided_by ? { by: approval.decided_by } : {}),
        },
      );
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

import { KeelError } from "../../core/index.js";
import type { Durability } from "../base/index.js";
import type { CommitBatch, PlacedBlobRow, WriteRow } from "./rows.js";
import { type QueuedCheckpoint, type QueuedThread, sealThread } from "./value-map.js";

/*
 * What each mode means for the queue:
 * - `sync`: `addCheckpoint` resolves after the commit, so before the next step starts.
 * - `async`: committed in the background, several steps per commit; `addCheckpoint` waits only
 *   when `maxQueued` steps are already waiting (backpressure). A crash loses at most the queued
 *   steps, and never consistency: each commit holds whole steps, writes with their checkpoints.
 * - `exit`: nothing is committed until `flush()` (every read flushes too), or until `maxQueued`
 *   steps wait (memory stays bounded).
 */

/**
 * Collects what the saver must write and commits it in as few transactions as the mode allows.
 * Writes made in one turn of the event loop share one commit with the checkpoint that follows
 * them (a chain step costs one commit: its task's writes and its checkpoint), and writes never
 * wait longer than one turn: a flush is scheduled with `setImmediate` whenever writes are queued.
 * Commits run one at a time, in order.
 */
export class WriteQueue {
  private pending = new Map<string, QueuedThread>();
  private pendingSteps = 0;
  private running: Promise<void> | undefined;
  private scheduled = false;
  private failure: unknown;

  constructor(
    private readonly commit: (batch: CommitBatch) => Promise<string[]>,
    private readonly ownerId: () => string,
    private readonly now: () => number,
    private readonly maxQueued: number,
  ) {}

  /** True when nothing is queued or being committed. */
  get idle(): boolean {
    return this.pending.size === 0 && this.running === undefined;
  }

  addWrites(threadId: string, rows: WriteRow[], durability: Durability): void {
    this.throwIfFailed();
    this.batchFor(threadId).writes.push(...rows);
    if (durability !== "exit") this.schedule();
  }

  /** Queues one step's checkpoint and values; resolves when the mode says it may. */
  async addCheckpoint(
    threadId: string,
    checkpoint: QueuedCheckpoint,
    blobs: PlacedBlobRow[],
    durability: Durability,
  ): Promise<void> {
    this.throwIfFailed();
    const batch = this.batchFor(threadId);
    batch.checkpoints.push(checkpoint);
    batch.blobs.push(...blobs);
    this.pendingSteps++;
    if (durability === "sync") {
      await this.flush();
      return;
    }
    if (durability === "async") this.schedule();
    try {
      while (this.pendingSteps >= this.maxQueued) await this.drainOnce();
    } catch (error) {
      this.failure = undefined;
      throw error;
    }
  }

  /** Commits everything queued; rejects with the first failure of a background commit. */
  async flush(): Promise<void> {
    try {
      while (!this.idle) await this.drainOnce();
    } catch (error) {
      this.failure = undefined;
      throw error;
    }
    this.throwIfFailed();
  }

  private batchFor(threadId: string): QueuedThread {
    let batch = this.pending.get(threadId);
    if (!batch) {
      batch = { threadId, checkpoints: [], blobs: [], writes: [] };
      this.pending.set(threadId, batch);
    }
    return batch;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drainOnce().catch(() => {
        // Kept in `failure`, raised on the next call.
      });
    });
  }

  /** Waits for the running commit, then commits what is pending (if anything). */
  private async drainOnce(): Promise<void> {
    if (this.running) {
      await this.running.catch(() => {});
      return;
    }
    if (this.pending.size === 0) return;
    const threads = [...this.pending.values()].map(sealThread);
    const steps = this.pendingSteps;
    this.pending = new Map();
    this.pendingSteps = 0;
    const batch: CommitBatch = { threads, ownerId: this.ownerId(), now: this.now() };
    this.running = this.commit(batch).then(
      (leased) => {
        this.running = undefined;
        if (leased.length > 0) throw leasedError(leased);
      },
      (error: unknown) => {
        this.running = undefined;
        throw error;
      },
    );
    try {
      await this.running;
    } catch (error) {
      this.failure ??= wrapFailure(error, steps);
      this.onFailure?.(threads.map((thread) => thread.threadId));
      throw this.failure;
    }
  }

  /** Called with the threads of a failed commit, so the saver can forget what it cached. */
  onFailure: ((threadIds: string[]) => void) | undefined;

  private throwIfFailed(): void {
    if (this.failure === undefined) return;
    const failure = this.failure;
    this.failure = undefined;
    throw failure;
  }
}

function leasedError(threadIds: string[]): KeelError {
  return new KeelError(
    "THREAD_LEASED",
    `Thread ${threadIds.map((id) => `"${id}"`).join(", ")} is leased by another live process; this process may not write to it.`,
    {
      details: { threadIds },
      hint: "Wait for the other run to finish or its lease to expire, or see who holds it with `keel runs show <thread>`.",
    },
  );
}

function wrapFailure(error: unknown, steps: number): unknown {
  if (error instanceof KeelError) return error;
  return new KeelError(
    "SAVER_QUEUE_FAILED",
    `Saving ${steps} queued step(s) failed: ${error instanceof Error ? error.message : String(error)}. Nothing of that commit was written.`,
    {
      cause: error,
      hint: "Resume the thread from its latest checkpoint once the database is reachable.",
    },
  );
}

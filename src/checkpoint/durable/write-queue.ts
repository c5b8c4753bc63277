import { KeelError } from "../../core/index.js";
import type { Durability, Serializer } from "../base/index.js";
import type { CommitBatch, PlacedBlobRow, ThreadBatch, WriteRow } from "./rows.js";
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
 * wait longer than one turn: a flush is scheduled with `process.nextTick` whenever writes are
 * queued (it runs once the current run of promise callbacks is done, before any I/O or timer, so
 * the checkpoint a step's code puts next still shares the commit).
 * Commits run one at a time, in order. On a database whose driver is asynchronous (Postgres), a
 * `sync` step that arrives while a commit is running waits for the next commit, which takes
 * every step queued meanwhile, of every thread (group commit: 32 threads stepping at once share
 * one commit instead of 32); a lone step commits at once.
 */
export class WriteQueue {
  private pending = new Map<string, QueuedThread>();
  private pendingSteps = 0;
  private running: Promise<void> | undefined;
  private scheduled = false;
  /** A failed commit nobody waited for: raised by the next call, whatever its thread. */
  private failure: unknown;
  /**
   * Threads a commit's lease check refused while nobody waited for them: raised by the next call
   * for that thread only (the other threads of that commit were written).
   */
  private readonly refused = new Map<string, KeelError>();
  /** The `sync` callers waiting for the commit of what is pending (made at the first). */
  private pendingWaiters: Waiters | undefined;
  /** True when something pending is not waited for (async or exit steps, lone writes). */
  private pendingUnwaited = false;

  constructor(
    private readonly commit: (batch: CommitBatch) => string[] | Promise<string[]>,
    private readonly ownerId: () => string,
    private readonly now: () => number,
    private readonly maxQueued: number,
    private readonly serde: Serializer,
  ) {}

  /** True when nothing is queued or being committed. */
  get idle(): boolean {
    return this.pending.size === 0 && this.running === undefined;
  }

  /** Queues the writes of one `putWrites` call (one task, one checkpoint). */
  addWrites(threadId: string, rows: WriteRow[], durability: Durability): void {
    this.throwIfFailed(threadId);
    const batch = this.batchFor(threadId);
    const first = rows[0];
    if (first === undefined) return;
    // Duplicates can only come from a second call for the same task and checkpoint, or from
    // special writes (which replace): only then does sealing need to dedupe. The set of calls
    // is made at the second call (a chain step makes one).
    const earlier = batch.writes[0];
    if (earlier !== undefined) {
      batch.tasks ??= new Set([taskKey(earlier)]);
      const task = taskKey(first);
      if (batch.tasks.has(task)) batch.repeated = true;
      else batch.tasks.add(task);
    }
    for (const row of rows) if (row.idx < 0) batch.repeated = true;
    // The first call's array (the caller's own, made for this call) is taken as is: no copy.
    if (batch.writes.length === 0) batch.writes = rows;
    else for (const row of rows) batch.writes.push(row);
    this.pendingUnwaited = true;
    if (durability !== "exit") this.schedule();
  }

  /**
   * Queues one step's checkpoint and values; returns a promise when the caller must wait (for
   * the commit in `sync` mode, for room in the queue), which resolves to `answer` when the mode
   * says it may (the saver's answer to `put`: no `then` of its own on the commit at every step).
   */
  addCheckpoint<T>(
    threadId: string,
    checkpoint: QueuedCheckpoint,
    blobs: PlacedBlobRow[],
    durability: Durability,
    answer: T,
  ): Promise<T> | undefined {
    this.throwIfFailed(threadId);
    const batch = this.batchFor(threadId);
    // A step's arrays are taken as they are when they are the first (no copy, no growth).
    if (batch.checkpoints.length === 0) batch.checkpoints = [checkpoint];
    else batch.checkpoints.push(checkpoint);
    if (batch.blobs.length === 0) batch.blobs = blobs;
    else for (const blob of blobs) batch.blobs.push(blob);
    this.pendingSteps++;
    if (durability === "sync")
      return this.running === undefined
        ? this.commitNow(threadId, answer)
        : this.nextCommit(threadId, answer);
    this.pendingUnwaited = true;
    if (durability === "async") this.schedule();
    return this.pendingSteps >= this.maxQueued ? this.drainToBound().then(() => answer) : undefined;
  }

  /**
   * Commits what is pending now, for a `sync` step of `threadId`: undefined when the commit was
   * synchronous (SQLite); else a promise settled by that commit alone (one `then` on it, where
   * `flush` would also wait for the commits started after it, for other threads' steps).
   */
  private commitNow<T>(threadId: string, answer: T): Promise<T> | undefined {
    try {
      while (this.pending.size > 0 && this.running === undefined) this.drainNow();
      if (this.running === undefined) {
        this.throwIfFailed(threadId);
        return undefined;
      }
    } catch (error) {
      this.raised(error);
      return Promise.reject(error);
    }
    return this.running.then(
      () => {
        this.throwIfFailed(threadId);
        return answer;
      },
      (error: unknown) => {
        this.raised(error);
        throw error;
      },
    );
  }

  /** Resolves when the commit that takes the pending steps is done (it starts after the running one). */
  private nextCommit<T>(threadId: string, answer: T): Promise<T> {
    this.pendingWaiters ??= waiters();
    // Like every call, a waiter also reports a background commit's failure (one error at a time).
    return this.pendingWaiters.promise.then(
      (leased) => {
        if (leased.includes(threadId)) {
          this.refused.delete(threadId);
          throw leasedError([threadId]);
        }
        this.throwIfFailed(threadId);
        return answer;
      },
      (error: unknown) => {
        this.raised(error);
        throw error;
      },
    );
  }

  /**
   * Commits everything queued; rejects with the first failure of a background commit. A database
   * that commits synchronously (SQLite) is done before this returns, with no await.
   */
  flush(): Promise<void> {
    return this.flushNow() ?? DONE;
  }

  /** `flush`, but undefined (no promise) when everything was committed before it returns. */
  private flushNow(): Promise<void> | undefined {
    if (this.running === undefined) {
      try {
        while (this.pending.size > 0 && this.running === undefined) this.drainNow();
        if (this.running === undefined) {
          this.throwIfFailed();
          return undefined;
        }
      } catch (error) {
        this.raised(error);
        return Promise.reject(error);
      }
    }
    return this.flushAsync();
  }

  private async flushAsync(): Promise<void> {
    try {
      while (!this.idle) await this.drainOnce();
    } catch (error) {
      this.raised(error);
      throw error;
    }
    this.throwIfFailed();
  }

  private async drainToBound(): Promise<void> {
    try {
      while (this.pendingSteps >= this.maxQueued) await this.drainOnce();
    } catch (error) {
      this.raised(error);
      throw error;
    }
  }

  private batchFor(threadId: string): QueuedThread {
    let batch = this.pending.get(threadId);
    if (!batch) {
      batch = {
        threadId,
        checkpoints: [],
        blobs: [],
        writes: [],
        tasks: undefined,
        repeated: false,
      };
      this.pending.set(threadId, batch);
    }
    return batch;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    process.nextTick(this.scheduledDrain);
  }

  /** Waits for the running commit, or commits what is pending (if anything). */
  private async drainOnce(): Promise<void> {
    if (this.running) {
      await this.running.catch(ignore);
      return;
    }
    if (this.pending.size === 0) return;
    this.drainNow();
    if (this.running) await this.running;
  }

  /**
   * Commits what is pending: a synchronous commit is settled here (throwing its failure), an
   * asynchronous one becomes `running`, which rejects with its failure.
   */
  private drainNow(): void {
    const threads: ThreadBatch[] = new Array(this.pending.size);
    let at = 0;
    for (const queued of this.pending.values()) threads[at++] = sealThread(this.serde, queued);
    const steps = this.pendingSteps;
    const waiting = this.pendingWaiters;
    // A failure nobody waits for is reported by the next call; a waiter gets its own.
    const report = this.pendingUnwaited || waiting === undefined;
    this.pending.clear();
    this.pendingSteps = 0;
    this.pendingWaiters = undefined;
    this.pendingUnwaited = false;
    const batch: CommitBatch = { threads, ownerId: this.ownerId(), now: this.now() };
    let result: string[] | Promise<string[]>;
    try {
      result = this.commit(batch);
    } catch (error) {
      const failure = this.fail(error, steps, threads, report);
      waiting?.reject(failure);
      throw failure;
    }
    if (Array.isArray(result)) {
      waiting?.resolve(result);
      if (result.length > 0) throw this.refuse(result, report);
      return;
    }
    const running = result.then(
      (leased) => {
        this.running = undefined;
        waiting?.resolve(leased);
        this.startWaitedCommit();
        if (leased.length > 0) throw this.refuse(leased, report);
      },
      (error: unknown) => {
        this.running = undefined;
        const failure = this.fail(error, steps, threads, report);
        waiting?.reject(failure);
        this.startWaitedCommit();
        throw failure;
      },
    );
    // Reported through `failure` and whoever awaits it.
    running.catch(ignore);
    this.running = running;
  }

  /** Starts the commit `sync` callers wait for, as soon as the one before it is done. */
  private startWaitedCommit(): void {
    if (this.pendingWaiters === undefined || this.running !== undefined) return;
    try {
      this.drainNow();
    } catch {
      // Delivered to its waiters (and, if unwaited, to the next call) by drainNow.
    }
  }

  /**
   * Records a failed commit (with `report`, raised by the next call) and what it means for the
   * caches; returns the error to raise.
   */
  private fail(
    error: unknown,
    steps: number,
    threads: readonly ThreadBatch[],
    report: boolean,
  ): unknown {
    const failure = wrapFailure(error, steps);
    if (report) this.failure ??= failure;
    this.onFailure?.(threads.map((thread) => thread.threadId));
    return report ? this.failure : failure;
  }

  /**
   * Records the threads a commit's lease check refused (nothing of theirs was written; the rest
   * of the commit was) and returns the error to raise. With `report`, each is raised by the next
   * call for its own thread, never for another thread of the same commit.
   */
  private refuse(threadIds: string[], report: boolean): KeelError {
    if (report) for (const id of threadIds) this.refused.set(id, leasedError([id]));
    this.onFailure?.(threadIds);
    return leasedError(threadIds);
  }

  private readonly scheduledDrain = (): void => {
    this.scheduled = false;
    // Nothing to do when a checkpoint's commit took the writes (a chain step).
    if (this.pending.size === 0) return;
    // A failure is kept in `failure`, raised on the next call.
    this.drainPending().catch(ignore);
  };

  /** Commits what is pending, after the commit that is running (if any). */
  private async drainPending(): Promise<void> {
    while (this.pending.size > 0) await this.drainOnce();
  }

  /** Called with the threads of a failed commit, so the saver can forget what it cached. */
  onFailure: ((threadIds: string[]) => void) | undefined;

  /** Forgets what `error`, now raised to a caller, recorded (it is reported once). */
  private raised(error: unknown): void {
    this.failure = undefined;
    if (error instanceof KeelError && error.code === "THREAD_LEASED") {
      const ids = error.details.threadIds;
      if (Array.isArray(ids)) for (const id of ids) this.refused.delete(String(id));
    }
  }

  /**
   * Raises a failure recorded for no one in particular; with a thread, also that thread's
   * refusal; without one (a flush), the first refusal of any thread.
   */
  private throwIfFailed(threadId?: string): void {
    if (this.failure !== undefined) {
      const failure = this.failure;
      this.failure = undefined;
      throw failure;
    }
    if (this.refused.size === 0) return;
    const id = threadId ?? this.refused.keys().next().value;
    const refusal = id === undefined ? undefined : this.refused.get(id);
    if (id === undefined || refusal === undefined) return;
    this.refused.delete(id);
    throw refusal;
  }
}

const DONE: Promise<void> = Promise.resolve();

/** A commit's waiters: resolved with the threads its lease check refused. */
interface Waiters {
  promise: Promise<string[]>;
  resolve(leased: string[]): void;
  reject(error: unknown): void;
}

function waiters(): Waiters {
  let resolve!: (leased: string[]) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<string[]>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A rejection is delivered through `nextCommit`'s promises.
  promise.catch(ignore);
  return { promise, resolve, reject };
}

function ignore(): void {}

function taskKey(row: WriteRow): string {
  return `${row.checkpointNs}\u0000${row.checkpointId}\u0000${row.taskId}`;
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

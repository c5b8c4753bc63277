/**
 * Copies a SQLite write-ahead log back into its database from a worker thread, so that the
 * commit that crosses `wal_autocheckpoint` frames finds nearly all of them copied and synced
 * already. Inside that commit SQLite otherwise copies the whole log (~40 MiB at 10,000 frames)
 * and fsyncs the log and the database: 40–80 ms during which the event loop stands still, about
 * every 700 agent rounds (docs/store.md, "WAL checkpoints"). The connection's own
 * autocheckpoint stays as it is: it bounds the log's size and resets it, as before, but copies
 * only what the worker has not reached yet.
 *
 * The worker starts only once the log has grown past one batch (most databases a test or a CLI
 * command opens never get there): a timer looks at the log's size while the event loop turns,
 * and heavy writers (the checkpoint saver) call `noteSqliteWrites` now and then, since a run
 * whose steps never wait on I/O gives the timer no turn. Started, it checks the log every few
 * milliseconds with SQLite's `NOOP` checkpoint (reads the log's header, copies nothing) and runs
 * a `PASSIVE` checkpoint, which never blocks a writer or a reader, once a batch of frames waits.
 */
import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type BetterSqlite3 from "better-sqlite3";

/** What the worker has done so far (for tests and benches). */
export interface WalCheckpointerStats {
  /** Whether the worker has started (the log reached one batch). */
  readonly started: boolean;
  /** `PASSIVE` checkpoints run. */
  readonly passes: number;
  /** Frames those checkpoints copied into the database. */
  readonly framesCopied: number;
}

export interface WalCheckpointerOptions {
  /** The database file (its log is `<path>-wal`). */
  readonly path: string;
  /**
   * The connection's `wal_autocheckpoint`: near it the worker copies every few frames, so that
   * the commit which checkpoints and resets the log finds almost nothing left to copy or sync.
   */
  readonly autocheckpointFrames: number;
  /**
   * Frames that wait in the log before the worker copies them (and the log size that starts
   * it). Default: an eighth of the autocheckpoint (at least 64), so the commit crossing it copies
   * at most about that many while the worker's fsyncs stay few (one pass per ~1,250 frames, ~5
   * MiB of log, at the store's 10,000).
   */
  readonly batchFrames?: number;
  /** How often the log's size is looked at before the worker starts (ms). */
  readonly watchMs?: number;
  /** How often the started worker looks at the log (ms). */
  readonly pollMs?: number;
}

// CommonJS run by `new Worker(…, { eval: true })`: no file to resolve under tsx, vitest or dist.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true, timeout: 0 });
db.pragma("synchronous = NORMAL");
let passes = 0;
let framesCopied = 0;
const timer = setInterval(() => {
  try {
    const [log] = db.pragma("wal_checkpoint(NOOP)");
    const nearReset = log.log >= workerData.autocheckpointFrames - 2 * workerData.batchFrames;
    if (log.log - log.checkpointed < (nearReset ? 16 : workerData.batchFrames)) return;
    const [done] = db.pragma("wal_checkpoint(PASSIVE)");
    passes += 1;
    framesCopied += Math.max(0, done.checkpointed - log.checkpointed);
  } catch {
    // A busy or vanished file: the connection's own autocheckpoint still copies the log.
  }
}, workerData.pollMs);
parentPort.on("message", (message) => {
  if (message === "stats") parentPort.postMessage({ passes, framesCopied });
  if (message === "close") {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
`;

/** The checkpointer of each open connection (`noteSqliteWrites` finds it by its database). */
const byDatabase = new WeakMap<object, WalCheckpointer>();

/**
 * Tells the background checkpointer of `database` (if it has one) that many commits were made:
 * it starts its worker if the log has grown past a batch. Cheap (one file stat); callers make it
 * every hundred commits or so.
 */
export function noteSqliteWrites(database: object): void {
  byDatabase.get(database)?.startIfGrown();
}

/**
 * The background checkpointer `database`'s own settings call for: a file in WAL mode under
 * `synchronous=NORMAL` with an autocheckpoint, opened for writing. Undefined otherwise — in
 * particular under FULL, where each commit waits on an fsync of the log and the worker's fsyncs
 * of the database queued beside them made a durable step 2–4x slower (a 100-node chain: 243–1,562
 * µs a step without the worker, 993–2,350 with it, load ~5), so the connection checkpoints in
 * line as before.
 *
 * @example
 * const checkpointer = walCheckpointerFor(database); // after the pragmas are set
 * // … commits …
 * await checkpointer?.close();
 */
export function walCheckpointerFor(database: BetterSqlite3.Database): WalCheckpointer | undefined {
  if (database.memory || database.readonly) return undefined;
  if (database.pragma("journal_mode", { simple: true }) !== "wal") return undefined;
  // PRAGMA synchronous reads back as a number: 1 is NORMAL.
  if (Number(database.pragma("synchronous", { simple: true })) !== 1) return undefined;
  const autocheckpointFrames = Number(database.pragma("wal_autocheckpoint", { simple: true }));
  if (autocheckpointFrames <= 0) return undefined;
  return new WalCheckpointer(database, { path: database.name, autocheckpointFrames });
}

const resolveDriver = (): string => createRequire(import.meta.url).resolve("better-sqlite3");

/**
 * The background checkpointer of one SQLite connection's database file; `close()` before the
 * connection closes, so that the connection is the last one and removes the log.
 *
 * @example
 * const checkpointer = new WalCheckpointer(database, { path, autocheckpointFrames: 10_000 });
 * // … commits …
 * await checkpointer.close();
 */
export class WalCheckpointer {
  #worker: Worker | undefined;
  #watch: NodeJS.Timeout | undefined;
  #closed = false;
  /** Whether a worker was started (it may have stopped since). */
  #started = false;
  /** The worker's last answer to `stats`. */
  #last: { passes: number; framesCopied: number } | undefined;

  readonly #batchFrames: number;

  /** `database`: the connection whose file this checkpoints (found by `noteSqliteWrites`). */
  constructor(
    database: object,
    private readonly options: WalCheckpointerOptions,
  ) {
    this.#batchFrames =
      options.batchFrames ?? Math.max(64, Math.floor(options.autocheckpointFrames / 8));
    byDatabase.set(database, this);
    this.#watch = setInterval(() => this.startIfGrown(), options.watchMs ?? 250);
    this.#watch.unref();
  }

  /** Starts the worker if the log has grown past one batch (a no-op once started or closed). */
  startIfGrown(): void {
    if (this.#watch === undefined) return;
    let size: number;
    try {
      size = statSync(`${this.options.path}-wal`).size;
    } catch {
      return;
    }
    // A frame is a page plus its 24-byte header; 4 KiB pages are the store's (SQLite's default).
    if (size >= this.#batchFrames * (4096 + 24)) this.#start();
  }

  #start(): void {
    clearInterval(this.#watch);
    this.#watch = undefined;
    this.#started = true;
    const { path, autocheckpointFrames, pollMs } = this.options;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: resolveDriver(),
        path,
        batchFrames: this.#batchFrames,
        autocheckpointFrames,
        pollMs: pollMs ?? 5,
      },
    });
    // The process may exit without closing the store: the worker must not keep it alive.
    worker.unref();
    // A worker that fails (the driver cannot load there) leaves the work to the connection.
    worker.on("error", () => {
      if (this.#worker === worker) this.#worker = undefined;
    });
    this.#worker = worker;
  }

  /** What the worker has done (zeros before it starts; its last answer once it has stopped). */
  async stats(): Promise<WalCheckpointerStats> {
    const worker = this.#worker;
    if (worker === undefined) return { started: this.#started, ...this.#lastOrZero() };
    // Referenced while the answer is awaited: an unreferenced worker does not keep the process
    // alive, and a process with nothing else to do would exit under the await.
    worker.ref();
    const reply = await new Promise<{ passes: number; framesCopied: number }>((resolve) => {
      // A worker that stops (its driver failed, the file vanished) never answers.
      const stopped = () => resolve(this.#lastOrZero());
      worker.once("exit", stopped);
      worker.once("message", (answer: { passes: number; framesCopied: number }) => {
        worker.off("exit", stopped);
        resolve(answer);
      });
      worker.postMessage("stats");
    });
    worker.unref();
    this.#last = reply;
    return { started: true, ...reply };
  }

  #lastOrZero(): { passes: number; framesCopied: number } {
    return this.#last ?? { passes: 0, framesCopied: 0 };
  }

  /** Stops watching and closes the worker's connection (waits for a checkpoint under way). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#watch);
    this.#watch = undefined;
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker === undefined) return;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    // As in `stats`: the process must wait for the worker's exit it awaits.
    worker.ref();
    worker.postMessage("close");
    // A worker stuck past a checkpoint's worst case is stopped; SQLite is safe either way.
    const stuck = setTimeout(() => void worker.terminate(), 10_000);
    stuck.unref();
    await exited;
    clearTimeout(stuck);
  }
}

/**
 * The SQLite floor of an agent round's commits: the rows Keel's saver committed in real runs
 * (captured from its runner), written again by bare prepared statements in the same transactions
 * on a fresh store (same schema and settings), nothing computed while they run. A round on Keel's
 * SQLite saver cannot cost less than this in its table layout; the bench prints it beside the
 * loop's overhead, so what is left for the saver's JavaScript is visible in every run.
 */
import { join } from "node:path";
import {
  blobValues,
  checkpointValues,
  UPSERT_THREAD,
  writeValues,
} from "../../src/checkpoint/durable/commit-sql.js";
import type { CommitBatch } from "../../src/checkpoint/durable/rows.js";
import { SqliteSaver } from "../../src/checkpoint/index.js";
import {
  INSERT_BLOB,
  INSERT_CHECKPOINT,
  INSERT_WRITE,
} from "../../src/checkpoint/sqlite/sqlite-runner.js";
import { noteSqliteWrites, openStore } from "../../src/store/index.js";
import { type Figures, measure, medianFigures } from "../lib/report.js";

const CAPTURED_RUNS = 10;
const REPLAYS_PER_ROUND = 20;
const ROUNDS = 7;

type Mode = "sync" | "async";

/**
 * Per agent round, the floor of the commits an agent run makes in each durability mode.
 * `agentOn(saver)` gives a function that runs the agent once on a thread in a mode; `rounds` is
 * its tool rounds per run.
 */
export async function commitFloor(
  dir: string,
  agentOn: (saver: SqliteSaver) => (thread: string, mode: Mode) => Promise<unknown>,
  modes: readonly Mode[],
  rounds: number,
): Promise<Map<Mode, Figures>> {
  const settings = { synchronous: "NORMAL", backupBeforeMigrate: false } as const;
  const capture = await openStore({ db: join(dir, "floor-capture.db"), ...settings });
  const floor = await openStore({ db: join(dir, "commit-floor.db"), ...settings });
  if (floor.native.dialect !== "sqlite") throw new Error("the commit floor needs SQLite");
  const database = floor.native.database;
  try {
    const saver = SqliteSaver.fromStore(capture);
    const runner = saver.sql;
    const commit = runner.commit.bind(runner);
    let batches: CommitBatch[] = [];
    runner.commit = (batch) => {
      batches.push(structuredClone(batch));
      return commit(batch);
    };
    const agentRun = agentOn(saver);
    const begin = database.prepare("BEGIN IMMEDIATE");
    const end = database.prepare("COMMIT");
    const upsert = database.prepare(UPSERT_THREAD);
    const insertWrite = database.prepare(INSERT_WRITE);
    const insertBlob = database.prepare(INSERT_BLOB);
    const insertCheckpoint = database.prepare(INSERT_CHECKPOINT);
    let replayed = 0;
    /** One captured run's commits again, under a thread id of its own (each row's first value). */
    const replay = (commits: readonly ReplayBatch[]): void => {
      const thread = `floor-${replayed++}`;
      let first = true;
      for (const batch of commits) {
        begin.run();
        for (const t of batch.threads) {
          // The thread row as the saver writes it: upserted by a thread's first commit.
          if (first) upsert.get(thread, batch.now, batch.now, batch.ownerId, batch.now);
          first = false;
          for (const row of t.writes) insertWrite.run(onThread(row, thread));
          for (const row of t.blobs) insertBlob.run(onThread(row, thread));
          for (const row of t.checkpoints) insertCheckpoint.run(onThread(row, thread));
        }
        end.run();
      }
    };
    const result = new Map<Mode, Figures>();
    for (const mode of modes) {
      const runs: ReplayBatch[][] = [];
      for (let i = 0; i < CAPTURED_RUNS; i++) {
        batches = [];
        await agentRun(`capture-${mode}-${i}`, mode);
        runs.push(batches.map(toReplay));
      }
      const replayRound = () => {
        for (let i = 0; i < REPLAYS_PER_ROUND; i++) replay(runs[i % runs.length] as ReplayBatch[]);
        // As Keel's SQLite runner does every 128 commits: the store's background checkpointer
        // starts once the log has grown, for the floor as for Keel.
        noteSqliteWrites(database);
      };
      replayRound();
      const figures: Figures[] = [];
      for (let round = 0; round < ROUNDS; round++)
        figures.push(await measure(REPLAYS_PER_ROUND * rounds, replayRound));
      result.set(mode, medianFigures(figures));
    }
    return result;
  } finally {
    await capture.close();
    await floor.close();
  }
}

/** A captured commit with each row's parameters built once, the thread id first (replaced). */
interface ReplayBatch {
  now: number;
  ownerId: string;
  threads: { writes: unknown[][]; blobs: unknown[][]; checkpoints: unknown[][] }[];
}

/** The saver's own value lists (commit-sql.ts), so the floor binds exactly what Keel binds. */
function toReplay(batch: CommitBatch): ReplayBatch {
  return {
    now: batch.now,
    ownerId: batch.ownerId,
    threads: batch.threads.map((t) => ({
      writes: t.writes.map((w) => ["", ...writeValues(w)]),
      blobs: t.blobs.map((b) => ["", ...blobValues(b)]),
      checkpoints: t.checkpoints.map((c) => ["", ...checkpointValues(c)]),
    })),
  };
}

/** The row's parameters under `thread` (in place: nothing is allocated while the floor runs). */
function onThread(row: unknown[], thread: string): unknown[] {
  row[0] = thread;
  return row;
}

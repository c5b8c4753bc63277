import { sql } from "kysely";
import type { SqlRunner } from "../../checkpoint/index.js";
import { KeelError, newId } from "../../core/index.js";
import type { Store } from "../../store/index.js";

/** A thread created through the API (its checkpoints live in the saver's tables). */
export interface ApiThread {
  threadId: string;
  metadata: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

/** What a run was asked to do: the LangGraph run-create body, as stored for crash recovery. */
export interface RunKwargs {
  input?: unknown;
  command?: { resume?: unknown; update?: unknown; goto?: unknown };
  config?: { configurable?: Record<string, unknown>; recursion_limit?: number; tags?: string[] };
  stream_mode: string[];
  interrupt_before?: string[] | "*";
  interrupt_after?: string[] | "*";
  checkpoint_id?: string;
  durability?: "sync" | "async" | "exit";
  /** Cancel the run when the streaming client disconnects. */
  on_disconnect?: "cancel" | "continue";
  /** Stream the subgraphs' events too (`<event>|<namespace>`). */
  stream_subgraphs?: boolean;
  /** Delete the thread when the run finishes (stateless runs). */
  delete_thread?: boolean;
}

/** The API side of a run: its assistant, kwargs and metadata (the record is in state_runs). */
export interface ApiRun {
  runId: string;
  threadId: string;
  assistantId: string;
  kwargs: RunKwargs;
  metadata: Record<string, unknown>;
  createdAt: number;
}

type Tables = {
  state_api_threads: { id: string; metadata_json: string; created_at: number; updated_at: number };
  state_api_runs: {
    id: string;
    thread_id: string;
    assistant_id: string;
    kwargs_json: string;
    metadata_json: string;
    created_at: number;
  };
};

/** Reads and writes `state_api_threads` and `state_api_runs` (migration 025). */
export class ApiRecords {
  /**
   * `reads`: a runner of prepared statements on the same database (the server's saver's) for
   * the lookups every run makes (`findThread`, `hasLiveRun`); without it, the query builder.
   */
  constructor(
    private readonly store: Store,
    private readonly reads?: SqlRunner,
  ) {}

  private db() {
    return this.store.kysely.withTables<Tables>();
  }

  async createThread(input: {
    threadId?: string;
    metadata?: Record<string, unknown>;
  }): Promise<ApiThread> {
    const now = Date.now();
    const thread: ApiThread = {
      threadId: input.threadId ?? newId(),
      metadata: input.metadata ?? {},
      createdAt: now,
      updatedAt: now,
    };
    await this.db()
      .insertInto("state_api_threads")
      .values({
        id: thread.threadId,
        metadata_json: JSON.stringify(thread.metadata),
        created_at: now,
        updated_at: now,
      })
      .execute();
    return thread;
  }

  async findThread(threadId: string): Promise<ApiThread | undefined> {
    if (this.reads) {
      const rows = await this.reads.all<Tables["state_api_threads"]>(
        "SELECT id, metadata_json, created_at, updated_at FROM state_api_threads WHERE id = ?",
        [threadId],
      );
      return rows[0] && toThread(rows[0]);
    }
    const row = await this.db()
      .selectFrom("state_api_threads")
      .selectAll()
      .where("id", "=", threadId)
      .executeTakeFirst();
    return row && toThread(row);
  }

  /** A thread, or THREAD_NOT_FOUND. */
  async getThread(threadId: string): Promise<ApiThread> {
    const thread = await this.findThread(threadId);
    if (!thread) {
      throw new KeelError("THREAD_NOT_FOUND", `No thread "${threadId}".`, {
        details: { threadId },
        hint: "Create it with POST /threads, or search with POST /threads/search.",
      });
    }
    return thread;
  }

  async patchThread(threadId: string, metadata: Record<string, unknown>): Promise<ApiThread> {
    const thread = await this.getThread(threadId);
    const next = {
      ...thread,
      metadata: { ...thread.metadata, ...metadata },
      updatedAt: Date.now(),
    };
    await this.db()
      .updateTable("state_api_threads")
      .set({ metadata_json: JSON.stringify(next.metadata), updated_at: next.updatedAt })
      .where("id", "=", threadId)
      .execute();
    return next;
  }

  async touchThread(threadId: string): Promise<void> {
    await this.db()
      .updateTable("state_api_threads")
      .set({ updated_at: Date.now() })
      .where("id", "=", threadId)
      .execute();
  }

  /** Threads, newest activity first, optionally only those whose metadata has these values. */
  async searchThreads(query: {
    ids?: string[];
    metadata?: Record<string, unknown>;
    limit: number;
    offset: number;
  }): Promise<ApiThread[]> {
    let q = this.db().selectFrom("state_api_threads").selectAll();
    if (query.ids) q = q.where("id", "in", query.ids.length ? query.ids : [""]);
    const rows = await q.orderBy("updated_at", "desc").orderBy("id", "desc").execute();
    const wanted = Object.entries(query.metadata ?? {});
    return rows
      .map(toThread)
      .filter((t) => wanted.every(([k, v]) => JSON.stringify(t.metadata[k]) === JSON.stringify(v)))
      .slice(query.offset, query.offset + query.limit);
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.db().deleteFrom("state_api_runs").where("thread_id", "=", threadId).execute();
    await this.db().deleteFrom("state_api_threads").where("id", "=", threadId).execute();
  }

  /**
   * The statements that store what a run was asked and mark its thread active (`?`
   * placeholders, for the saver's `atomic`): the run manager commits them with the run's own
   * record, so a run costs one commit to create.
   */
  createRunStatements(run: ApiRun): Array<{ sql: string; params: unknown[] }> {
    return [
      {
        sql: "INSERT INTO state_api_runs (id, thread_id, assistant_id, kwargs_json, metadata_json, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        params: [
          run.runId,
          run.threadId,
          run.assistantId,
          JSON.stringify(run.kwargs),
          JSON.stringify(run.metadata),
          run.createdAt,
        ],
      },
      {
        sql: "UPDATE state_api_threads SET updated_at = ? WHERE id = ?",
        params: [Date.now(), run.threadId],
      },
    ];
  }

  async findRun(runId: string): Promise<ApiRun | undefined> {
    const row = await this.db()
      .selectFrom("state_api_runs")
      .selectAll()
      .where("id", "=", runId)
      .executeTakeFirst();
    return row && toRun(row);
  }

  /** The runs of a thread, newest first. */
  async runsOfThread(threadId: string, limit: number, offset: number): Promise<ApiRun[]> {
    const rows = await this.db()
      .selectFrom("state_api_runs")
      .selectAll()
      .where("thread_id", "=", threadId)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map(toRun);
  }

  /**
   * True when the thread has a run pending or running (of any process). The statuses are
   * written into the statement so that it reads only the thread's live runs
   * (`ix_state_runs_thread_id`, migration 031, a partial index of the live runs), never its history.
   */
  async hasLiveRun(threadId: string): Promise<boolean> {
    if (this.reads) {
      const rows = await this.reads.all(
        "SELECT 1 AS one FROM state_runs WHERE thread_id = ? AND status IN ('pending', 'running') LIMIT 1",
        [threadId],
      );
      return rows.length > 0;
    }
    const result = await sql<{ one: number }>`
      SELECT 1 AS one FROM state_runs
      WHERE thread_id = ${threadId} AND status IN ('pending', 'running') LIMIT 1`.execute(
      this.store.kysely,
    );
    return result.rows.length > 0;
  }

  /** API runs whose record is still pending or running: what a restarted server takes up. */
  async unfinishedRuns(): Promise<ApiRun[]> {
    const result = await sql<Tables["state_api_runs"]>`
      SELECT a.* FROM state_api_runs a JOIN state_runs r ON r.id = a.id
      WHERE r.status IN ('pending', 'running') ORDER BY a.created_at`.execute(this.store.kysely);
    return result.rows.map(toRun);
  }

  async deleteRun(runId: string): Promise<void> {
    await this.db().deleteFrom("state_api_runs").where("id", "=", runId).execute();
  }
}

function toThread(row: Tables["state_api_threads"]): ApiThread {
  return {
    threadId: row.id,
    metadata: JSON.parse(row.metadata_json) as Record<string, unknown>,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toRun(row: Tables["state_api_runs"]): ApiRun {
  return {
    runId: row.id,
    threadId: row.thread_id,
    assistantId: row.assistant_id,
    kwargs: JSON.parse(row.kwargs_json) as RunKwargs,
    metadata: JSON.parse(row.metadata_json) as Record<string, unknown>,
    createdAt: Number(row.created_at),
  };
}

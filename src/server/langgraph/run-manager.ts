import {
  type DurableSaver,
  type RunRecord,
  type RunStore,
  runInsertStatement,
} from "../../checkpoint/index.js";
import { KeelError, toKeelError } from "../../core/index.js";
import { Command } from "../../graph/index.js";
import type { EventBus } from "../events.js";
import type { ApiRecords, ApiRun, RunKwargs } from "./api-records.js";
import type { Assistant } from "./assistants.js";
import { ChainEvents } from "./chain-events.js";
import { LiveRun } from "./live-run.js";
import { MessageEvents } from "./message-events.js";
import { debugDerived, engineModes } from "./stream-modes.js";
import { toWire } from "./wire.js";

/** How a finished run ended, as `wait` and `join` answer it. */
export interface RunOutcome {
  record: RunRecord;
  /** The thread's values at the end (with `__interrupt__` when it paused). */
  values: unknown;
  error: { error: string; message: string } | null;
}

/** What the manager needs. */
export interface RunManagerOptions {
  saver: DurableSaver;
  runs: RunStore;
  records: ApiRecords;
  assistants: Map<string, Assistant>;
  bus: EventBus;
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** Finished live runs kept for late joiners (their events are in memory only). */
const KEEP_FINISHED = 200;

/**
 * Executes the API's runs in this process, on the durable saver through `RunStore` (status,
 * lease, cancel), and keeps each run's event stream for its subscribers. A run is recorded
 * before it starts, with what it was asked (`state_api_runs`), so that a server killed mid-run
 * takes it up again at its next start (`recover`): from its last checkpoint when it had begun,
 * from the start otherwise.
 */
export class RunManager {
  private readonly live = new Map<string, LiveRun>();
  private readonly results = new Map<string, RunOutcome>();
  /** Threads with a run being created or executed here: the `reject` multitask strategy. */
  private readonly busy = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  /** The runs executed here lately (id → when they ended, or 0 while they run). */
  private readonly executed = new Map<string, number>();
  private closing = false;

  constructor(private readonly options: RunManagerOptions) {}

  assistant(assistantId: string): Assistant {
    const found =
      this.options.assistants.get(assistantId) ??
      [...this.options.assistants.values()].find((a) => a.graphId === assistantId);
    if (!found) {
      throw new KeelError("ASSISTANT_NOT_FOUND", `No assistant "${assistantId}".`, {
        details: { assistantId },
        hint: `Assistants: ${[...this.options.assistants.keys()].join(", ") || "(none: give keel serve a config)"}.`,
      });
    }
    return found;
  }

  /** Records a run and starts it in the background. */
  async create(
    threadId: string,
    assistantId: string,
    kwargs: RunKwargs,
    metadata: Record<string, unknown>,
  ): Promise<{ record: RunRecord; api: ApiRun; live: LiveRun }> {
    if (this.closing) {
      throw new KeelError("STORE_BUSY", "The server is shutting down; no new runs are started.", {
        hint: "Retry once it is back.",
      });
    }
    const assistant = this.assistant(assistantId);
    if (this.busy.has(threadId) || (await this.options.records.hasLiveRun(threadId))) {
      throw new KeelError("THREAD_BUSY", `Thread "${threadId}" already has a run in progress.`, {
        details: { threadId },
        hint: "Wait for it (POST …/runs/{run_id}/join) or cancel it, then start another.",
      });
    }
    this.busy.add(threadId);
    try {
      // The run's record, what it was asked, and its thread's activity: one commit.
      const record = this.options.runs.draft({ threadId, graphId: assistant.graphId });
      const api: ApiRun = {
        runId: record.id,
        threadId,
        assistantId: assistant.assistantId,
        kwargs,
        metadata,
        createdAt: record.createdAt,
      };
      await this.options.saver.sql.atomic([
        runInsertStatement(record),
        ...this.options.records.createRunStatements(api),
      ]);
      const live = this.start(api, assistant, false, record);
      return { record, api, live };
    } catch (error) {
      this.busy.delete(threadId);
      throw error;
    }
  }

  /**
   * True for a run this server executes or ended within the last minute: the change watcher
   * leaves their events to this manager (the live streams kept for joins are fewer under load).
   */
  executedHere(runId: string): boolean {
    return this.executed.has(runId);
  }

  /** The live stream of a run executed here, if it is still kept. */
  liveRun(runId: string): LiveRun | undefined {
    return this.live.get(runId);
  }

  /** Waits for a run to end (here, or in another process: then by polling its record). */
  async wait(runId: string, signal?: AbortSignal): Promise<RunOutcome> {
    const live = this.live.get(runId);
    if (live) await live.done;
    const kept = this.results.get(runId);
    if (kept) return kept;
    for (;;) {
      const record = await this.options.runs.get(runId);
      if (!["pending", "running"].includes(record.status)) return this.outcomeOf(record);
      if (signal?.aborted) throw toKeelError(signal.reason);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Cancels a run (recorded at once; a run executing here stops before its next step). */
  async cancel(runId: string, wait: boolean): Promise<RunRecord> {
    const record = await this.options.runs.cancel(runId, "canceled through the API");
    this.options.bus.publish("run.canceled", { run_id: runId, thread_id: record.threadId });
    if (wait) await this.wait(runId);
    return record;
  }

  /** Takes up the runs a previous server left pending or running (it crashed or was killed). */
  async recover(): Promise<string[]> {
    const unfinished = await this.options.records.unfinishedRuns();
    const taken: string[] = [];
    for (const api of unfinished) {
      const assistant = this.options.assistants.get(api.assistantId);
      if (!assistant || this.live.has(api.runId)) continue;
      this.busy.add(api.threadId);
      this.start(api, assistant, true);
      taken.push(api.runId);
      this.options.log.info(
        { runId: api.runId, threadId: api.threadId },
        "run taken up after a restart",
      );
    }
    return taken;
  }

  /** Stops starting runs and waits (up to `graceMs`) for those in flight. */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    const all = Promise.allSettled([...this.inFlight]);
    await Promise.race([all, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
  }

  private start(
    api: ApiRun,
    assistant: Assistant,
    recovering: boolean,
    record?: RunRecord,
  ): LiveRun {
    const live = new LiveRun(api.runId, api.threadId);
    this.live.set(api.runId, live);
    this.executed.set(api.runId, 0);
    live.emit("metadata", { run_id: api.runId, thread_id: api.threadId, attempt: 1 });
    this.options.bus.publish("run.created", {
      run_id: api.runId,
      thread_id: api.threadId,
      assistant_id: api.assistantId,
    });
    const job = this.execute(api, assistant, live, recovering, record).finally(() => {
      this.busy.delete(api.threadId);
      this.inFlight.delete(job);
      live.finish();
      this.executed.set(api.runId, Date.now());
      this.forgetOld();
    });
    this.inFlight.add(job);
    return live;
  }

  private async execute(
    api: ApiRun,
    assistant: Assistant,
    live: LiveRun,
    recovering: boolean,
    record?: RunRecord,
  ): Promise<void> {
    const { kwargs } = api;
    const graph = assistant.graph;
    let last: unknown;
    let interrupts: unknown[] | undefined;
    const meta = { run_id: api.runId, thread_id: api.threadId, assistant_id: api.assistantId };
    try {
      const { run } = await this.options.runs.execute(
        record ?? api.runId,
        async (config) => {
          const input = recovering && (await this.inputApplied(api)) ? null : inputOf(kwargs);
          const runConfig = {
            ...config,
            configurable: {
              ...(kwargs.config?.configurable ?? {}),
              ...config.configurable,
              ...(kwargs.checkpoint_id && !(recovering && input === null)
                ? { checkpoint_id: kwargs.checkpoint_id }
                : {}),
            },
            streamMode: engineModes(kwargs.stream_mode),
            ...(kwargs.config?.recursion_limit
              ? { recursionLimit: kwargs.config.recursion_limit }
              : {}),
            ...(kwargs.config?.tags ? { tags: kwargs.config.tags } : {}),
            ...(kwargs.interrupt_before ? { interruptBefore: kwargs.interrupt_before } : {}),
            ...(kwargs.interrupt_after ? { interruptAfter: kwargs.interrupt_after } : {}),
            metadata: meta,
            // LangGraph's `custom` mode: nodes call config.writer(chunk); the engine passes the
            // config through to nodes unchanged.
            writer: (chunk: unknown) => live.emit("custom", toWire(chunk)),
            // Subgraphs stream their events to the parent, tagged with their namespace.
            ...(kwargs.stream_subgraphs ? { subgraphs: true } : {}),
          };
          const stream = await graph.stream(input, runConfig);
          const messages = new MessageEvents(live, meta);
          const events = kwargs.stream_mode.includes("events")
            ? new ChainEvents(live, assistant.graphId, meta)
            : undefined;
          events?.start(input instanceof Command ? null : input);
          for await (const item of stream) {
            const [namespace, mode, chunk] = streamItem(item);
            if (namespace.length > 0) {
              // A subgraph's event: sent as `<event>|<namespace>`, as LangGraph's server does;
              // the run's own state, result and steps are the parent's alone.
              const suffix = `|${namespace.join("|")}`;
              live.emit(`${mode}${suffix}`, toWire(chunk));
              const derived = mode === "debug" ? debugDerived(chunk) : null;
              if (derived) live.emit(`${derived[0]}${suffix}`, toWire(derived[1]));
              continue;
            }
            if (mode === "messages") {
              messages.fromEngine(chunk);
              events?.fromMessage(chunk);
              continue;
            }
            // Each task that paused announces its interrupts (in both modes, the same objects);
            // a static pause announces none. The run's interrupts are all of them, once each.
            if ((mode === "values" || mode === "updates") && "__interrupt__" in chunk)
              interrupts = [
                ...new Set([...(interrupts ?? []), ...(chunk.__interrupt__ as unknown[])]),
              ];
            if (mode === "values") {
              if (!("__interrupt__" in chunk)) last = chunk;
              events?.values(chunk);
            }
            if (mode === "updates") messages.fromUpdate(chunk);
            live.emit(mode, toWire(chunk));
            if (mode === "debug") {
              events?.fromDebug(chunk);
              const derived = debugDerived(chunk);
              if (derived) live.emit(derived[0], toWire(derived[1]));
            }
            if (mode === "updates")
              this.options.bus.publish("run.step", { ...meta, nodes: Object.keys(chunk) });
          }
          events?.end(interrupts ? { ...(last as object), __interrupt__: interrupts } : last);
          return (
            interrupts ? { ...(last as object), __interrupt__: interrupts } : (last ?? {})
          ) as Record<string, unknown>;
        },
        {
          // LangGraph's API defaults to `async`: steps are committed in the background (a
          // run's steps share commits), all of them before the run's end is recorded; a crash
          // loses at most the steps not yet committed, which the resumed run does again.
          durability: kwargs.durability ?? "async",
          // The engine reports every pause in the updates stream (`__interrupt__`), so the
          // result says whether the run paused: no checkpoint read after the run.
          paused: (result) => "__interrupt__" in result,
        },
      );
      const values = toWire(
        interrupts
          ? { ...(last as object), __interrupt__: interrupts }
          : (last ?? (await this.valuesOf(api, assistant))),
      );
      this.results.set(api.runId, { record: run, values, error: null });
      this.options.bus.publish("run.finished", { ...meta, status: run.status });
    } catch (thrown) {
      const error = toKeelError(thrown);
      const record = await this.options.runs.get(api.runId).catch(() => undefined);
      const canceled = record?.status === "canceled";
      const wire = { error: error.code, message: error.message };
      if (!canceled) live.emit("error", wire);
      if (record)
        this.results.set(api.runId, {
          record,
          values: toWire(last ?? {}),
          error: canceled ? null : wire,
        });
      this.options.bus.publish("run.finished", {
        ...meta,
        status: record?.status ?? "failed",
        error: wire,
      });
      if (!canceled) this.options.log.error({ runId: api.runId, code: error.code }, "run failed");
    }
    if (kwargs.delete_thread) {
      await this.options.saver.deleteThreadAndRuns(api.threadId).catch(() => {});
      await this.options.records.deleteThread(api.threadId).catch(() => {});
    }
  }

  /**
   * True when a run taken up after a crash had already saved its input: a checkpoint of its
   * thread made since it started. Then it continues from there (input `null`); otherwise it
   * starts again with what it was asked.
   */
  private async inputApplied(api: ApiRun): Promise<boolean> {
    const record = await this.options.runs.get(api.runId);
    if (record.startedAt === null) return false;
    const tuple = await this.options.saver.getTuple({ configurable: { thread_id: api.threadId } });
    return tuple !== undefined && Date.parse(tuple.checkpoint.ts) >= record.startedAt;
  }

  private async valuesOf(api: ApiRun, assistant: Assistant): Promise<unknown> {
    const snapshot = await assistant.graph.getState({ configurable: { thread_id: api.threadId } });
    return snapshot.values;
  }

  private async outcomeOf(record: RunRecord): Promise<RunOutcome> {
    const api = await this.options.records.findRun(record.id);
    const assistant = api && this.options.assistants.get(api.assistantId);
    let values: unknown = {};
    if (assistant) {
      const snapshot = await assistant.graph.getState({
        configurable: { thread_id: record.threadId },
      });
      const pending = snapshot.tasks.flatMap((t) => t.interrupts);
      values = toWire(
        pending.length ? { ...snapshot.values, __interrupt__: pending } : snapshot.values,
      );
    }
    const error =
      record.status === "failed" && record.error
        ? { error: record.error.code, message: record.error.message }
        : null;
    return { record, values, error };
  }

  private forgetOld(): void {
    const before = Date.now() - 60_000;
    for (const [runId, ended] of this.executed) {
      if (ended === 0) continue;
      if (ended > before) break;
      this.executed.delete(runId);
    }
    const finished = [...this.live.values()].filter((l) => l.isFinished);
    for (const old of finished.slice(0, Math.max(0, finished.length - KEEP_FINISHED))) {
      this.live.delete(old.runId);
      this.results.delete(old.runId);
    }
  }
}

/** The graph input of a run: its `command` as a Command, else its `input`. */
function inputOf(kwargs: RunKwargs): Record<string, unknown> | Command | null {
  if (kwargs.command) {
    const { resume, update, goto } = kwargs.command;
    return new Command({
      ...(resume !== undefined ? { resume } : {}),
      ...(update !== undefined ? { update: update as Record<string, unknown> } : {}),
      ...(goto !== undefined ? { goto: goto as string | string[] } : {}),
    });
  }
  return (kwargs.input ?? null) as Record<string, unknown> | null;
}

/**
 * An engine stream item as `[namespace, mode, chunk]`: `[mode, chunk]` from the run itself, or
 * `[namespace, mode, chunk]` when it streams its subgraphs (`subgraphs: true`).
 */
function streamItem(item: unknown): [string[], string, Record<string, unknown>] {
  const parts = item as unknown[];
  if (parts.length === 3)
    return [parts[0] as string[], parts[1] as string, parts[2] as Record<string, unknown>];
  return [[], parts[0] as string, parts[1] as Record<string, unknown>];
}

import {
  type BaseCheckpointSaver,
  type CheckpointConfig,
  type CheckpointConfigurable,
  type CheckpointMetadata,
  type CheckpointTuple,
  DURABILITY_MODES,
  type Durability,
  type PendingWrite,
} from "../../checkpoint/base/index.js";
import { KeelError } from "../../core/index.js";
import type { RunConfig } from "../types.js";
import { makeCheckpoint, taskPendingWrites } from "./checkpointing.js";
import type { RunState } from "./run-state.js";
import type { Task } from "./task.js";

/** In `async` durability, how many saves may be outstanding before a step waits for them. */
const MAX_ASYNC_SAVES = 64;

/** How a run ended, for what `exit` durability must save. */
export type RunEnd = "end" | "interrupt" | "error";

/**
 * The checkpointer side of a run: where it saves, the checkpoint it is at, and when saves must be
 * durable (the `durability` option, as in LangGraph.js):
 * - `sync`: each task's writes are saved as the task finishes; the step's checkpoint is saved,
 *   and durable, before the next step starts.
 * - `async`: the same saves, but the run does not wait for them (at most `MAX_ASYNC_SAVES`
 *   outstanding; the saver may batch them); the run waits for all of them when it ends.
 * - `exit`: nothing is saved while the run goes; when it ends, fails or pauses, its last checkpoint
 *   and the writes of the tasks of an unfinished step are.
 */
export class RunPersistence {
  /** Config of the last saved checkpoint (its `checkpoint_id` is the parent of the next one). */
  config: CheckpointConfig;
  /** Id of the current checkpoint; "" before the first. Task ids derive from it. */
  checkpointId = "";
  /** The engine's mode (undefined: the saver's default, with sync behaviour in the engine). */
  readonly mode: Durability | undefined;
  /** What each save tells the saver (the mode, or the older `configurable.durability`). */
  private readonly hint: Durability | undefined;
  /** Saves issued and not yet awaited (sync: this step's task writes; async: everything). */
  private inflight: Array<Promise<void>> = [];
  /** `exit`: the step saved locally only, to put when the run ends. */
  private unsaved: { metadata: CheckpointMetadata } | undefined;
  /** `exit`: writes of the tasks of the current step, saved if the run stops inside it. */
  private stepWrites: Array<[taskId: string, writes: PendingWrite[]]> = [];
  /** True once the saver holds a checkpoint of this run (loaded or put): later puts are deltas. */
  private persisted = false;

  constructor(
    readonly saver: BaseCheckpointSaver | undefined,
    readonly ns: string,
    private readonly run: RunConfig,
  ) {
    const configurable: CheckpointConfigurable = { ...run.configurable, checkpoint_ns: ns };
    delete configurable.checkpoint_id;
    delete configurable.durability;
    this.config = { configurable };
    this.mode = checkMode(run.durability);
    this.hint = this.mode ?? checkMode(run.configurable?.durability);
  }

  /** The checkpoint the run starts from: the one the config names, or the thread's latest. */
  async load(): Promise<CheckpointTuple | undefined> {
    if (!this.saver) return undefined;
    const wanted = this.run.configurable?.checkpoint_id;
    const tuple = await this.saver.getTuple({
      configurable: { ...this.config.configurable, checkpoint_id: wanted },
    });
    if (wanted !== undefined && !tuple) {
      throw new KeelError(
        "CHECKPOINT_NOT_FOUND",
        `No checkpoint "${wanted}" on thread "${this.run.configurable?.thread_id}".`,
        {
          hint: "List the thread's checkpoints with graph.getStateHistory(config).",
        },
      );
    }
    return tuple;
  }

  /** True when `tuple` is the latest checkpoint of its thread and namespace. */
  async isLatest(tuple: CheckpointTuple): Promise<boolean> {
    if (this.run.configurable?.checkpoint_id === undefined) return true;
    const latest = await this.saver!.getTuple({
      configurable: { ...tuple.config.configurable, checkpoint_id: undefined },
    });
    return latest?.checkpoint.id === tuple.checkpoint.id;
  }

  /** Continues from a loaded checkpoint. */
  adopt(tuple: CheckpointTuple): void {
    this.checkpointId = tuple.checkpoint.id;
    this.config = tuple.config;
    this.persisted = true;
  }

  /**
   * Saves a task's writes against the current checkpoint as soon as the task finishes (whatever
   * the other tasks of the step are doing), so a crash never runs a finished task again.
   */
  taskFinished(state: RunState, task: Task): void {
    const writes = taskPendingWrites(state.spec, task);
    if (this.mode === "exit") {
      this.stepWrites.push([task.taskId, writes]);
      return;
    }
    const config = this.callConfig(this.checkpointId);
    const saver = this.saver!;
    this.issue(() => saver.putWrites(config, writes, task.taskId));
  }

  /** Waits for the writes of the step's tasks (sync), so none is saved after the checkpoint. */
  async settleStep(): Promise<void> {
    if (this.mode !== "async" && this.inflight.length > 0) await this.drain();
  }

  /** Saves the run's state as a new checkpoint (only the channels changed since the last save). */
  async save(
    state: RunState,
    source: CheckpointMetadata["source"],
    writes: Record<string, unknown> | null,
    forceSync = false,
  ): Promise<{ metadata: CheckpointMetadata; ts: string }> {
    const metadata: CheckpointMetadata = {
      source,
      step: state.step,
      parents: {},
      writes,
      ...this.run.metadata,
    };
    const threadId = this.config.configurable?.thread_id;
    if (threadId !== undefined) metadata.thread_id = threadId;
    this.stepWrites = [];
    if (this.mode === "exit" && !forceSync) {
      // The id still changes every step: task ids derive from it.
      const checkpoint = makeCheckpoint(state.spec, state);
      this.checkpointId = checkpoint.id;
      this.unsaved = { metadata };
      return { metadata, ts: checkpoint.ts };
    }
    return this.putCheckpoint(state, metadata, forceSync ? "sync" : this.hint);
  }

  /**
   * What a run owes the saver when it stops: in `exit` mode its last checkpoint (and the writes of
   * an unfinished step); in `async` mode the saves still outstanding. A nested run (a subgraph)
   * in `exit` mode saves only when it pauses or fails, as in LangGraph.js.
   */
  async finish(state: RunState, end: RunEnd): Promise<void> {
    if (!this.saver) return;
    if (this.mode === "exit") {
      if (end === "end" && this.ns !== "") return;
      if (this.unsaved) {
        const { metadata } = this.unsaved;
        this.unsaved = undefined;
        await this.putCheckpoint(state, metadata, "sync", this.checkpointId);
      }
      const config = this.callConfig(this.checkpointId, "sync");
      for (const [taskId, writes] of this.stepWrites)
        await this.saver.putWrites(config, writes, taskId);
      this.stepWrites = [];
      await this.saver.flush();
      return;
    }
    if (this.inflight.length > 0) await this.drain();
    if (this.mode === "async") await this.saver.flush();
  }

  private async putCheckpoint(
    state: RunState,
    metadata: CheckpointMetadata,
    hint: Durability | undefined,
    id?: string,
  ): Promise<{ metadata: CheckpointMetadata; ts: string }> {
    const checkpoint = makeCheckpoint(state.spec, state);
    if (id !== undefined) checkpoint.id = id;
    const newVersions: Record<string, number> = {};
    const changed = this.persisted ? state.dirty! : state.versions.keys();
    for (const index of changed) {
      if (state.channels[index]!.has())
        newVersions[state.spec.channelNames[index]!] = state.versions[index]!;
    }
    state.dirty!.clear();
    const parent = hint === undefined ? this.config : { ...this.config, durability: hint };
    const saver = this.saver!;
    // The saved checkpoint's config is known without waiting for the saver.
    this.config = {
      configurable: {
        thread_id: this.config.configurable?.thread_id,
        checkpoint_ns: this.ns,
        checkpoint_id: checkpoint.id,
      },
    };
    this.checkpointId = checkpoint.id;
    this.persisted = true;
    if (this.mode === "async" && hint === "async") {
      this.issue(async () => {
        await saver.put(parent, checkpoint, metadata, newVersions);
      });
      if (this.inflight.length >= MAX_ASYNC_SAVES) await this.drain();
    } else {
      await saver.put(parent, checkpoint, metadata, newVersions);
    }
    return { metadata, ts: checkpoint.ts };
  }

  /** Starts a save after the ones already issued (a saver sees them in order). */
  private issue(save: () => Promise<void>): void {
    const previous = this.inflight[this.inflight.length - 1];
    const next = previous ? previous.then(save) : save();
    // A failure is raised by `drain`; until then it must not count as unhandled.
    next.catch(() => {});
    this.inflight.push(next);
  }

  private async drain(): Promise<void> {
    const pending = this.inflight;
    this.inflight = [];
    await Promise.all(pending);
  }

  private callConfig(checkpointId: string, hint = this.hint): CheckpointConfig {
    const configurable = { ...this.config.configurable, checkpoint_id: checkpointId };
    return hint === undefined ? { configurable } : { configurable, durability: hint };
  }
}

function checkMode(mode: unknown): Durability | undefined {
  if (mode === undefined) return undefined;
  if (DURABILITY_MODES.includes(mode as Durability)) return mode as Durability;
  throw new KeelError("INVALID_ARGUMENT", `Unknown durability mode ${JSON.stringify(mode)}.`, {
    hint: `Use one of ${DURABILITY_MODES.join(", ")}.`,
  });
}

/** Refuses a feature that must save a paused run when there is nowhere to save it. */
export function requireSaver(saver: BaseCheckpointSaver | undefined, feature: string): void {
  if (!saver) {
    throw new KeelError(
      "CHECKPOINTER_REQUIRED",
      `${feature} needs a checkpointer: the paused run must be saved to be resumed.`,
      {
        hint: "Compile with a checkpointer, e.g. builder.compile({ checkpointer: new MemorySaver() }), and pass configurable.thread_id.",
      },
    );
  }
}

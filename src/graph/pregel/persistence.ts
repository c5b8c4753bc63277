import {
  type BaseCheckpointSaver,
  type Checkpoint,
  type CheckpointConfig,
  type CheckpointConfigurable,
  type CheckpointMetadata,
  type CheckpointTuple,
  DURABILITY_MODES,
  type Durability,
  type PendingWrite,
  savesInOrder,
} from "../../checkpoint/base/index.js";
import { KeelError } from "../../core/index.js";
import type { RunConfig } from "../types.js";
import { makeCheckpoint, taskPendingWrites } from "./checkpointing.js";
import { DeltaSaves } from "./delta-saves.js";
import type { RunState } from "./run-state.js";
import type { DeltaKey } from "./spec.js";
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
 *
 * How saves reach the saver depends on it (see `ORDERED_SAVES`). Keel's SQL savers get them one
 * after another, a step's checkpoint once its writes settled: they commit both in one transaction.
 * Any other saver gets them as LangGraph.js issues them: a task's writes as it finishes, a step's
 * checkpoint beside its writes (chained only after the previous checkpoint, which a saver storing
 * changed channels only needs); `sync` then waits for all of them before the next step, and
 * without a mode the run goes on as in `async`, LangGraph.js's default. The writes belong to the
 * previous checkpoint and matter only while the new one is not saved, so saving both at once loses
 * nothing. A checkpoint not yet issued when the run is aborted is dropped (the thread stays at the
 * last one saved).
 */
export class RunPersistence {
  /** Config of the last saved checkpoint (its `checkpoint_id` is the parent of the next one). */
  config: CheckpointConfig;
  /** Id of the current checkpoint; "" before the first. Task ids derive from it. */
  checkpointId = "";
  /**
   * The engine's mode (undefined: the saver's default; the engine then behaves as in `sync` for
   * ordered savers, as in `async` for the others).
   */
  readonly mode: Durability | undefined;
  /** What each save tells the saver (the mode, or the older `configurable.durability`). */
  private readonly hint: Durability | undefined;
  /** Saves issued and not yet awaited (sync: this step's task writes; async: everything). */
  private inflight: Array<Promise<unknown>> = [];
  /** True for a saver that takes its saves one after another (see the class comment). */
  readonly ordered: boolean;
  /** A save known to have fulfilled (see `settleStep`, `track`). */
  private fulfilled: Promise<unknown> | undefined;
  /** How many saves `track` gave a handler that have not fulfilled yet (see `unsettledSave`). */
  private unsettled = 0;
  /** The save `track` gave a handler last (see there). */
  private lastTracked: Promise<unknown> | undefined;
  /** Unordered saves: the last checkpoint `put` issued and not yet awaited (the next one follows). */
  private lastPut: Promise<unknown> | undefined;
  /** `exit`: the step saved locally only, to put when the run ends. */
  private unsaved: { metadata: CheckpointMetadata } | undefined;
  /** `exit`: that checkpoint, built before a paused step's finished writes were applied. */
  private held: PreparedPut | undefined;
  /** `exit`: writes of the tasks of the current step, saved if the run stops inside it. */
  private stepWrites: Array<[taskId: string, writes: PendingWrite[]]> = [];
  /** True once the saver holds a checkpoint of this run (loaded or put): later puts are deltas. */
  private persisted = false;
  /** `config` with the durability hint (see `hintedConfig`), made once per checkpoint. */
  private hinted: CheckpointConfig | undefined;
  /** The metadata and timestamp of the checkpoint saved last (for the debug stream). */
  savedMetadata: CheckpointMetadata | undefined;
  savedTs = "";
  /** The id of the checkpoint saved last's parent (undefined for a thread's first). */
  private savedParentId: string | undefined;
  /**
   * The caller's `configurable` (less the checkpoint it names): every config handed to the saver
   * carries it, as LangGraph.js's does, so a custom saver can read its own keys (a tenant, a user).
   */
  private readonly base: CheckpointConfigurable;
  /** True when `base` is `{ thread_id, checkpoint_ns }` only (the common case; see `preparePut`). */
  private readonly threadOnly: boolean;
  /**
   * The graph's `DeltaChannel` keys saved in LangGraph.js's delta format: only for a graph that
   * has such keys and a saver other than Keel's SQL savers (which store every key by value).
   */
  readonly delta: DeltaSaves | undefined;

  constructor(
    readonly saver: BaseCheckpointSaver | undefined,
    readonly ns: string,
    private readonly run: RunConfig,
    private readonly signal?: AbortSignal,
    deltaKeys: readonly DeltaKey[] = [],
  ) {
    this.ordered = saver === undefined || savesInOrder(saver);
    this.delta =
      deltaKeys.length > 0 && saver !== undefined && !this.ordered
        ? new DeltaSaves(deltaKeys)
        : undefined;
    const configurable: CheckpointConfigurable = { ...run.configurable, checkpoint_ns: ns };
    delete configurable.checkpoint_id;
    delete configurable.durability;
    this.base = configurable;
    const keys = Object.keys(configurable);
    this.threadOnly = keys.length === 2 && keys[0] === "thread_id" && keys[1] === "checkpoint_ns";
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

  /**
   * For a checkpoint made by an update: the past checkpoint it forked the thread from (its parent,
   * when a newer checkpoint than that parent was saved before it), else undefined.
   */
  async forkedFrom(tuple: CheckpointTuple): Promise<string | undefined> {
    const parentId = tuple.parentConfig?.configurable?.checkpoint_id;
    if (typeof parentId !== "string" || !this.saver) return undefined;
    const options = { before: { configurable: { checkpoint_id: tuple.checkpoint.id } }, limit: 1 };
    const config = { configurable: { ...this.config.configurable, checkpoint_id: undefined } };
    for await (const previous of this.saver.list(config, options))
      return previous.checkpoint.id === parentId ? undefined : parentId;
    return undefined;
  }

  /** The config of the checkpoint saved last's parent, as `getState` shows it (debug stream). */
  get savedParent(): CheckpointConfig | undefined {
    const id = this.savedParentId;
    if (id === undefined) return undefined;
    return {
      configurable: { thread_id: this.base.thread_id, checkpoint_ns: this.ns, checkpoint_id: id },
    };
  }

  /** Continues from a loaded checkpoint. */
  adopt(tuple: CheckpointTuple): void {
    if (this.delta) {
      this.delta.adopt(tuple.metadata);
      // Writes of a paused or failed step the next checkpoint may not be built from.
      if (tuple.pendingWrites.length > 0) this.delta.unrecorded = true;
    }
    this.checkpointId = tuple.checkpoint.id;
    this.setConfig({ configurable: { ...this.base, ...tuple.config.configurable } });
    this.persisted = true;
  }

  /**
   * The next checkpoint saved becomes a sibling of the adopted one (`updateState(…, "__copy__")`):
   * its parent is `parent`, the adopted checkpoint's own parent (none: a root of the thread).
   */
  adoptParent(parent: CheckpointConfig | undefined): void {
    const { checkpoint_id: _adopted, ...configurable } = this.config.configurable ?? {};
    const parentId = parent?.configurable?.checkpoint_id;
    this.setConfig({
      configurable:
        parentId === undefined ? configurable : { ...configurable, checkpoint_id: parentId },
    });
    // A saver may resolve a channel's value along the parent chain: the copy writes them all.
    this.persisted = false;
  }

  private setConfig(config: CheckpointConfig): void {
    this.config = config;
    this.hinted = undefined;
  }

  /**
   * `config` with the run's durability: what each task's `putWrites` against the current
   * checkpoint and the next `put` are given. One object per checkpoint, not one per call.
   */
  private hintedConfig(): CheckpointConfig {
    if (this.hint === undefined) return this.config;
    // A literal, not a spread of `config` (a config has only these two keys).
    this.hinted ??= { configurable: this.config.configurable, durability: this.hint };
    return this.hinted;
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
    const config = this.hintedConfig();
    const saver = this.saver!;
    if (!this.ordered) {
      this.track(saver.putWrites(config, writes, task.taskId), true);
      return;
    }
    const previous = this.unsettledSave();
    // Saved after the saves still running (a saver sees them in order); a closure only then.
    if (previous) this.track(previous.then(() => saver.putWrites(config, writes, task.taskId)));
    else this.track(saver.putWrites(config, writes, task.taskId), true);
  }

  /** Saves a hand-made task's writes against the current checkpoint at once (an update's). */
  async putTaskWrites(state: RunState, task: Task): Promise<void> {
    const writes = taskPendingWrites(state.spec, task);
    await this.saver!.putWrites(this.callConfig(this.checkpointId, "sync"), writes, task.taskId);
  }

  /**
   * What to wait for before the step's checkpoint (ordered saves, sync): the writes of the step's
   * tasks, so none is saved after it. Undefined when there is nothing to wait for.
   */
  settleStep(): Promise<unknown> | undefined {
    if (!this.ordered || this.mode === "async") return undefined;
    const waiting = this.drain();
    // Keel's savers answer `putWrites` with one shared settled promise: once awaited, it is
    // known to have fulfilled (a promise settles once), and waiting for it again is a microtask
    // turn for nothing, at every step.
    return waiting === this.fulfilled ? undefined : waiting;
  }

  /** Records that `save` (what `settleStep` gave) fulfilled: see `settleStep`. */
  settled(save: Promise<unknown>): void {
    this.fulfilled = save;
  }

  /**
   * What to wait for once the step's checkpoint was issued, before the next step (unordered saves,
   * sync): everything issued so far. Undefined when there is nothing to wait for.
   */
  stepSaved(): Promise<unknown> | undefined {
    return this.mode === "sync" && !this.ordered ? this.drain() : undefined;
  }

  /**
   * Saves the run's state as a new checkpoint (only the channels changed since the last save);
   * returns what to wait for (undefined when nothing). Its metadata and timestamp are then in
   * `savedMetadata` and `savedTs`.
   */
  save(
    state: RunState,
    source: CheckpointMetadata["source"],
    writes: Record<string, unknown> | null,
    forceSync = false,
    hold = false,
  ): Promise<unknown> | undefined {
    const threadId = this.config.configurable?.thread_id;
    // Without run metadata (the common case) one literal, in the same key order as below.
    const metadata: CheckpointMetadata =
      this.run.metadata === undefined && threadId !== undefined
        ? { source, step: state.step, parents: this.parents(), writes, thread_id: threadId }
        : { source, step: state.step, parents: this.parents(), writes, ...this.run.metadata };
    if (threadId !== undefined) metadata.thread_id = threadId;
    this.stepWrites = [];
    if (this.mode === "exit" && !forceSync) {
      // The id still changes every step: task ids derive from it.
      const checkpoint = makeCheckpoint(state.spec, state, this.checkpointId);
      this.checkpointId = checkpoint.id;
      this.unsaved = { metadata };
      this.savedMetadata = metadata;
      this.savedTs = checkpoint.ts;
      return undefined;
    }
    return this.putCheckpoint(
      state,
      metadata,
      forceSync ? "sync" : hold ? "exit" : this.hint,
      forceSync,
    );
  }

  /**
   * True when a run's input checkpoint may be held by the saver until step 0's checkpoint commits
   * both in one transaction (see `GraphLoop.applyInput`): Keel's savers (ordered) in a mode that
   * commits each step (`sync`, or the saver's own default); in `async` they share one anyway.
   */
  get canHoldInput(): boolean {
    return this.ordered && (this.hint === "sync" || this.hint === undefined);
  }

  /** Commits a held input checkpoint now (before user code that may wait, or on an error). */
  releaseHeld(): Promise<void> | undefined {
    return flushSaver(this.saver!);
  }

  /**
   * `metadata.parents`: for a subgraph's checkpoint, the checkpoint each enclosing graph was at
   * (namespace → id, from `configurable.checkpoint_map`), as LangGraph.js records it; `{}` for
   * the root graph. A fresh object per checkpoint (savers keep what they are given).
   */
  private parents(): Record<string, string> {
    const map = this.ns === "" ? undefined : this.run.configurable?.checkpoint_map;
    return typeof map === "object" && map !== null ? { ...(map as Record<string, string>) } : {};
  }

  /**
   * What a run owes the saver when it stops: in `exit` mode its last checkpoint (and the writes of
   * an unfinished step); in `async` mode the saves still outstanding. A nested run (a subgraph)
   * in `exit` mode saves only when it pauses or fails, as in LangGraph.js, unless it keeps its
   * own state across calls (`checkpointer: true`: its namespace names no task, `node:taskId`).
   */
  async finish(state: RunState, end: RunEnd): Promise<void> {
    if (!this.saver) return;
    if (this.mode === "exit") {
      if (end === "end" && this.ns.includes(":")) return;
      if (this.held) {
        const put = this.held;
        this.held = undefined;
        await this.sendPut(put);
      } else if (this.unsaved) {
        const { metadata } = this.unsaved;
        this.unsaved = undefined;
        await this.putCheckpoint(state, metadata, "sync", true, this.checkpointId);
      }
      const config = this.callConfig(this.checkpointId, "sync");
      for (const [taskId, writes] of this.stepWrites)
        await this.saver.putWrites(config, writes, taskId);
      this.stepWrites = [];
      await flushSaver(this.saver);
      return;
    }
    if (this.inflight.length > 0) await this.drain();
    // What the saver still queues (async mode's steps; the writes of the tasks that finished in
    // a step that stopped at an interrupt or an error, which no checkpoint followed) is durable
    // before the run returns, unless the saver was told to hold the run (`configurable.durability`
    // "exit": it commits at its own flush).
    if (this.hint !== "exit") await flushSaver(this.saver);
  }

  private putCheckpoint(
    state: RunState,
    metadata: CheckpointMetadata,
    hint: Durability | undefined,
    forced: boolean,
    id?: string,
  ): Promise<unknown> | undefined {
    const put = this.preparePut(state, metadata, hint, id);
    if (!this.ordered) {
      // Beside the step's writes, each put after the one before (a put carries only changes).
      const previous = this.lastPut;
      const signal = this.signal;
      const issued = previous
        ? previous.then(() => (signal?.aborted ? undefined : this.sendPut(put)))
        : this.sendPut(put);
      this.lastPut = issued;
      if (forced) return issued;
      this.track(issued);
      return this.inflight.length >= MAX_ASYNC_SAVES ? this.drain() : undefined;
    }
    if (this.mode === "async" && hint === "async") {
      this.issue(() => this.sendPut(put));
      return this.inflight.length >= MAX_ASYNC_SAVES ? this.drain() : undefined;
    }
    // The common case (`sync`, Keel's savers): the saver's own promise, no wrapper.
    return this.sendPut(put);
  }

  /**
   * `exit`: takes the checkpoint still to save now, before a paused step's finished tasks are
   * applied to the state (their writes are saved as pending writes, not in the checkpoint), so a
   * resumed run applies every task's writes in the step's order, as the other modes do.
   */
  holdUnsaved(state: RunState): void {
    if (this.mode !== "exit" || !this.unsaved) return;
    const { metadata } = this.unsaved;
    this.unsaved = undefined;
    this.held = this.preparePut(state, metadata, "sync", this.checkpointId);
  }

  /** Builds a checkpoint of the state now; returns what `sendPut` gives the saver. */
  private preparePut(
    state: RunState,
    metadata: CheckpointMetadata,
    hint: Durability | undefined,
    id?: string,
  ): PreparedPut {
    const checkpoint = makeCheckpoint(state.spec, state, this.checkpointId);
    this.savedMetadata = metadata;
    this.savedTs = checkpoint.ts;
    if (id !== undefined) checkpoint.id = id;
    const newVersions: Record<string, number> = {};
    const { channelNames } = state.spec;
    if (this.persisted) {
      const dirty = state.dirty!;
      for (let k = 0; k < dirty.size; k += 1) {
        const index = dirty.items[k]!;
        if (state.holds(index)) newVersions[channelNames[index]!] = state.versions[index]!;
      }
    } else {
      for (const index of state.held) newVersions[channelNames[index]!] = state.versions[index]!;
    }
    // Delta keys: saved as writes only when the step's writes are the parent's pending writes
    // (a loop step or an input, in `sync`/`async`; a thread's first checkpoint holds defaults).
    this.delta?.apply(
      state,
      checkpoint,
      metadata,
      newVersions,
      this.mode !== "exit" && (metadata.source === "loop" || metadata.source === "input"),
    );
    state.dirty!.clear();
    const parent =
      hint === undefined
        ? this.config
        : hint === this.hint
          ? this.hintedConfig()
          : { ...this.config, durability: hint };
    const saver = this.saver!;
    this.savedParentId = this.config.configurable?.checkpoint_id;
    // The saved checkpoint's config is known without waiting for the saver. A copy with keys set
    // one by one: V8 (Node 20) builds a spread literal that adds a key its source lacks
    // (`{ ...base, checkpoint_id }`) through a slow path, and this runs at every step.
    // A config with the thread id only is a literal of the same keys in the same order (a copy
    // of an object is a generic loop over its keys).
    let configurable: CheckpointConfigurable;
    if (this.threadOnly) {
      configurable = {
        thread_id: this.base.thread_id,
        checkpoint_ns: this.ns,
        checkpoint_id: checkpoint.id,
      };
    } else {
      configurable = Object.assign({}, this.base);
      configurable.checkpoint_ns = this.ns;
      configurable.checkpoint_id = checkpoint.id;
    }
    this.setConfig({ configurable });
    this.checkpointId = checkpoint.id;
    this.persisted = true;
    return { saver, parent, checkpoint, metadata, newVersions };
  }

  /** Puts a prepared checkpoint; a saver that throws instead of rejecting rejects here. */
  private sendPut(put: PreparedPut): Promise<unknown> {
    try {
      const result: unknown = put.saver.put(
        put.parent,
        put.checkpoint,
        put.metadata,
        put.newVersions,
      );
      return result instanceof Promise ? result : Promise.resolve(result);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Starts a save after the ones already issued (a saver sees them in order). */
  private issue(save: () => Promise<unknown>): void {
    const previous = this.unsettledSave();
    this.track(previous ? previous.then(save) : save());
  }

  /**
   * The last save issued, unless every save issued has fulfilled (a new one then goes straight
   * to the saver: in `async` mode the step's saves are long done when the next one comes, and a
   * `then` per save was two promises and a microtask turn each).
   */
  private unsettledSave(): Promise<unknown> | undefined {
    return this.unsettled === 0 ? undefined : this.inflight[this.inflight.length - 1];
  }

  /**
   * Records an issued save. `writes`: a `putWrites` answer, which Keel's savers make one shared
   * settled promise: once known fulfilled it needs no handler again (a put's answer is new).
   */
  private track(save: Promise<unknown>, writes = false): void {
    if (save !== this.fulfilled && save !== this.lastTracked) {
      this.lastTracked = save;
      this.unsettled += 1;
      // A failure is raised by `drain`; until then it must not count as unhandled. A rejected
      // save stays unsettled: every later one is chained after it, and is not issued.
      const fulfilled = writes
        ? () => {
            this.unsettled -= 1;
            this.fulfilled = save;
          }
        : this.putFulfilled;
      save.then(fulfilled, ignore);
    }
    this.inflight.push(save);
  }

  private readonly putFulfilled = (): void => {
    this.unsettled -= 1;
  };

  /**
   * What settles when every save issued so far has, and rejects if any did. Ordered saves are
   * chained each after the one before (`issue`, `taskFinished`): the last one settles last.
   */
  private drain(): Promise<unknown> | undefined {
    const inflight = this.inflight;
    const last = inflight[inflight.length - 1];
    if (last === undefined) return undefined;
    this.inflight = [];
    if (this.ordered) return last;
    // The caller awaits this before the next save: that one needs no chain.
    this.lastPut = undefined;
    return inflight.length === 1 ? last : Promise.all(inflight);
  }

  private callConfig(checkpointId: string, hint = this.hint): CheckpointConfig {
    const configurable = Object.assign({}, this.config.configurable);
    configurable.checkpoint_id = checkpointId;
    return hint === undefined ? { configurable } : { configurable, durability: hint };
  }
}

function ignore(): void {}

/** A checkpoint built and not yet given to the saver (`preparePut`). */
interface PreparedPut {
  readonly saver: BaseCheckpointSaver;
  readonly parent: CheckpointConfig;
  readonly checkpoint: Checkpoint;
  readonly metadata: CheckpointMetadata;
  readonly newVersions: Record<string, number>;
}

/** `saver.flush()`, which a saver written for LangGraph.js (not extending Keel's) may not have. */
function flushSaver(saver: BaseCheckpointSaver): Promise<void> | undefined {
  return typeof saver.flush === "function" ? saver.flush() : undefined;
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
      `No checkpointer set: ${feature} needs one, the paused run must be saved to be resumed.`,
      {
        hint: "Compile with a checkpointer, e.g. builder.compile({ checkpointer: new MemorySaver() }), and pass configurable.thread_id.",
      },
    );
  }
}

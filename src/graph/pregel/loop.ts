import {
  type BaseCheckpointSaver,
  type CheckpointConfig,
  type CheckpointMetadata,
  type CheckpointTuple,
  customNextVersion,
  newCheckpointId,
} from "../../checkpoint/base/index.js";
import { KeelError } from "../../core/index.js";
import { type Command, isCommand } from "../command.js";
import { INTERRUPT, START } from "../constants.js";
import { GraphDrained, GraphRecursionError, type Interrupt } from "../errors.js";
import type { MessagesStream } from "../messages/messages-stream.js";
import { RunControl } from "../run-control.js";
import type { RunTrace } from "../tracing/index.js";
import type { RunConfig, StateTask } from "../types.js";
import { applyTasks } from "./apply.js";
import { cacheHits } from "./cache-hits.js";
import { dueInput, groupPendingWrites, type SavedTaskOutcome } from "./checkpointing.js";
import { fillDeltaValues } from "./delta-saves.js";
import {
  debugResult,
  debugTask,
  nodeError,
  raceAbort,
  streamNodeMessages,
  writesOf,
} from "./events.js";
import { abortError, type ExecuteContext, executeTask } from "./execute.js";
import { idleSignal, isIdleSignal } from "./idle-signal.js";
import { routeFromStart, writeRoute, writeUpdate } from "./node-output.js";
import { RunPersistence, requireSaver } from "./persistence.js";
import { reuseSavedWrites } from "./resume.js";
import { RunState } from "./run-state.js";
import type { GraphSpec, NodeSpec } from "./spec.js";
import type { SubgraphSink } from "./subgraph-sink.js";
import { byNodeOrder, Task } from "./task.js";

/** LangChain's tag for runs a trace viewer hides (LangGraph.js puts it on `__start__`). */
const TAG_HIDDEN = "langsmith:hidden";

/** Callbacks for what a stream asked to see; absent ones cost nothing. */
export interface LoopHooks {
  values?: (state: Record<string, unknown>) => void;
  updates?: (chunk: Record<string, unknown>) => void;
  debug?: (chunk: Record<string, unknown>) => void;
  /** What nodes write with `config.writer(chunk)` (stream mode "custom"). */
  custom?: (chunk: unknown) => void;
  /** `streamMode: "messages"`: told when nodes start and end (model tokens arrive by callback). */
  messages?: MessagesStream;
}

function ignoreChunk(_chunk: unknown): void {}

export interface LoopOptions {
  spec: GraphSpec;
  saver: BaseCheckpointSaver | undefined;
  config: RunConfig;
  interruptBefore: ReadonlySet<string>;
  interruptAfter: ReadonlySet<string>;
  hooks: LoopHooks;
  subgraphConfig: (task: Task) => RunConfig;
  /** Most milliseconds one step may take (`graph.stepTimeout`); its nodes' signal then fires. */
  stepTimeout?: number | undefined;
  /** Where to start instead of the thread's latest checkpoint (`undefined`: a new thread). */
  startAt?: { tuple: CheckpointTuple | undefined } | undefined;
  /** The run's LangChain callback runs, when it was given callbacks. */
  trace?: RunTrace | undefined;
  /** Where subgraphs stream when the run is streamed with `subgraphs: true`. */
  sink?: SubgraphSink | undefined;
}

/**
 * A run that replays a thread from a past checkpoint: `from` is that checkpoint's id, `started`
 * an id made when the run began, so a checkpoint id between them was saved after the replayed
 * point by an earlier run (the "future" of the replay).
 */
export interface Replay {
  readonly from: string;
  readonly started: string;
  /** Time travel straight into a subgraph: the subgraph at `ns` starts at `checkpointId`. */
  readonly into?: { readonly ns: string; readonly checkpointId: string } | undefined;
}

/** How a run ended: `interrupts` is set (possibly empty, for interruptBefore/After) when it paused. */
export interface LoopOutcome {
  interrupts: Interrupt[] | undefined;
}

/** START as a node: its edges and conditional edges route the input. */
export function startNode(spec: GraphSpec): NodeSpec {
  return {
    name: START,
    index: -1,
    order: -1,
    action: undefined,
    subgraph: undefined,
    isAsync: false,
    retryPolicy: undefined,
    timeout: undefined,
    cachePolicy: undefined,
    triggers: [],
    edgeWrites: spec.start.edgeWrites,
    branches: spec.start.branches,
  };
}

/**
 * A controller for a step whose tasks can run at the same time (several, one of them an `async`
 * node): its signal fires when one of them fails. Other steps need none (an AbortController
 * costs microseconds), nor do synchronous nodes, which cannot be interrupted anyway.
 */
function siblingsOf(tasks: Task[]): AbortController | undefined {
  if (tasks.length < 2) return undefined;
  for (const task of tasks)
    if (task.node.isAsync || task.node.subgraph) return new AbortController();
  return undefined;
}

/** A finished task's update on the updates stream (not a failed or interrupted one's). */
function streamUpdate(updates: (chunk: Record<string, unknown>) => void, task: Task): void {
  if (task.failed || task.interrupts) return;
  const chunk: Record<string, unknown> = { [task.node.name]: task.update ?? {} };
  // A node-cache hit or a task's saved writes replayed on resume say so, as LangGraph.js's
  // updates chunk does.
  if (task.cached || (task.node.cachePolicy && task.config && cacheHits.has(task.config)))
    chunk.__metadata__ = { cached: true };
  updates(chunk);
}

/**
 * A task that paused says so as it finishes, in its own graph's stream (`{ __interrupt__ }` with
 * its interrupts), as LangGraph.js does: a reader sees the pause before slower tasks finish.
 */
function streamInterrupts(hooks: LoopHooks, task: Task): void {
  const interrupts = task.interrupts;
  if (!interrupts || interrupts.length === 0) return;
  hooks.updates?.({ [INTERRUPT]: interrupts });
  hooks.values?.({ [INTERRUPT]: interrupts });
}

/**
 * One run of a compiled graph: bulk-synchronous super-steps over the graph's channels (see
 * docs/graph.md, "Step semantics"). `load` decides where the run starts; `run` steps it.
 */
export class GraphLoop extends RunState implements ExecuteContext {
  readonly config: RunConfig;
  readonly persistence: RunPersistence;
  private stop = 0;
  private saved: Map<string, SavedTaskOutcome> | undefined;
  private resume: { value: unknown } | undefined;
  /** False when resuming a past checkpoint: its finished tasks run again. */
  private reuseWrites = true;
  private skipInterruptBefore = false;
  /** `config.writer` of every node: the custom stream, or nothing when nobody listens. */
  readonly writer: (chunk: unknown) => void;
  readonly control: RunControl;
  /** Set when this run replays from a past checkpoint (its stateful subgraphs replay too). */
  replay: Replay | undefined = undefined;
  /** The signal nodes get while a step with a `stepTimeout` runs (undefined otherwise). */
  stepSignal: AbortSignal | undefined = undefined;
  readonly nodeSignal: AbortSignal;
  /** Aborts the running step's other tasks when one fails (see siblingsOf); per step. */
  private siblings: AbortController | undefined = undefined;
  private firstFailure: Task | undefined = undefined;
  /** The step's lone task `execute` left running, and its place in the finishing order. */
  private late: Task | undefined = undefined;
  private lateSeq = 0;
  /** The caller's signal (`signal`, `timeout`), undefined when nothing can abort the run. */
  private readonly runSignal: AbortSignal | undefined;
  readonly trace: RunTrace | undefined;
  readonly streamHandlers: boolean;
  readonly sink: SubgraphSink | undefined;
  /** Set for a subgraph's run: a static pause is announced by the outermost graph only. */
  nested = false;

  constructor(private readonly options: LoopOptions) {
    super(options.spec, options.saver !== undefined);
    this.nextVersion = customNextVersion(options.saver);
    // Traced: the run's config with LangGraph.js's trace metadata (ls_integration, ids).
    this.config = options.trace?.config ?? options.config;
    this.trace = options.trace;
    const callbacks = options.config.callbacks;
    this.streamHandlers = !options.trace && Array.isArray(callbacks) && callbacks.length > 0;
    this.sink = options.sink;
    this.control = options.config.control ?? new RunControl();
    this.writer = options.hooks.custom ?? options.config.writer ?? ignoreChunk;
    // A graph invoked inside a node inherits the node's signal, which may be the idle one.
    const signal = options.config.signal;
    this.runSignal = signal && !isIdleSignal(signal) ? signal : undefined;
    this.nodeSignal = this.runSignal ?? idleSignal();
    this.persistence = new RunPersistence(
      options.saver,
      options.config.configurable?.checkpoint_ns ?? "",
      options.config,
      this.runSignal,
      options.spec.deltaKeys,
    );
  }

  taskFailed(task: Task): void {
    if (this.firstFailure) return;
    this.firstFailure = task;
    // As LangGraph.js: a failed task cancels the others still running in its step.
    this.siblings?.abort(task.error);
  }

  subgraphConfig(task: Task): RunConfig {
    return this.options.subgraphConfig(task);
  }

  /** Loads a saved checkpoint into this run. */
  restore(tuple: CheckpointTuple): void {
    this.restoreCheckpoint(tuple.checkpoint, tuple.metadata.step);
    this.persistence.adopt(tuple);
  }

  /** The tasks the next step would run, with ids derived from the current checkpoint. */
  nextTasks(): Task[] {
    return this.prepareTasks({
      checkpointId: this.persistence.checkpointId,
      ns: this.persistence.ns,
      step: this.step + 1,
    });
  }

  /** The tasks `nextTasks` would give, leaving them to be taken. */
  private peekTasks(): Task[] {
    const idSource = {
      checkpointId: this.persistence.checkpointId,
      ns: this.persistence.ns,
      step: this.step + 1,
    };
    return this.prepareTasks(idSource, true);
  }

  /**
   * Applies hand-made updates (`updateState`, a `bulkUpdateState` superstep) as one step and saves
   * it. Like a step, it consumes the pending `Send`s (as LangGraph.js's update clears its tasks
   * channel); the updates' own Sends stay for the next step.
   */
  async applyUpdate(
    tasks: Task[],
    writes: Record<string, unknown> | null,
  ): Promise<CheckpointConfig> {
    applyTasks(this, tasks, true);
    this.step += 1;
    // A hand-made update is saved at once whatever the run's durability.
    await this.save("update", writes, true);
    return this.persistence.config;
  }

  /**
   * `updateState(config, values, "__copy__")`: saves the restored checkpoint again, unchanged, as
   * a fork beside it (same parent, one step later, none of its pending writes), as LangGraph.js
   * does; its pending tasks run afresh from the copy.
   */
  async saveCopy(
    parent: CheckpointConfig | undefined,
    writes: Record<string, unknown> | null,
  ): Promise<CheckpointConfig> {
    this.persistence.adoptParent(parent);
    this.step += 1;
    await this.save("fork", writes, true);
    return this.persistence.config;
  }

  /**
   * `updateState(config, values, "__input__")`: saves `values` as the thread's next input, as a
   * run saves its input before applying it (the tasks a pause left pending are dropped); the
   * next run, or an update as START, applies it.
   */
  async saveAsInput(values: unknown, restored: boolean): Promise<CheckpointConfig> {
    const stale = this.nextTasks();
    if (stale.length > 0) applyTasks(this, stale);
    this.step = restored ? this.step + 1 : -1;
    await this.save("input", { [START]: values }, true);
    return this.persistence.config;
  }

  /** Loads where this run starts: nothing (a new thread), the thread's state, or a checkpoint to resume or fork. */
  async load(input: unknown): Promise<void> {
    const limit = this.config.recursionLimit ?? 25;
    const startAt = this.options.startAt;
    const tuple = startAt ? startAt.tuple : await this.persistence.load();
    if (tuple) {
      const filling = fillDeltaValues(this.spec, this.options.saver, tuple);
      if (filling) await filling;
      this.restore(tuple);
    }
    const command = isCommand(input) ? (input as Command) : undefined;
    const resuming = input === undefined || input === null || command !== undefined;
    if (resuming && !tuple) {
      throw new KeelError(
        "EMPTY_INPUT",
        command
          ? "Cannot resume: the thread has no checkpoint to resume from."
          : "The graph received no input and has no checkpoint to continue from.",
        {
          hint: command
            ? "Pass the same configurable.thread_id as the interrupted run, with a checkpointer."
            : "Pass an input object, or a thread_id of a thread that has state.",
        },
      );
    }
    if (!tuple || !resuming) {
      // A new input on a thread continues its step count: input at step n, START applied at n + 1.
      this.step = tuple ? this.step + 1 : -1;
      this.stop = this.step + limit + 1;
      return this.applyInput(input, false);
    }
    const due = command ? undefined : dueInput(tuple.metadata);
    if (due) {
      // The run stopped after saving its input but before applying it (or this is a copy of
      // such a checkpoint): apply it now.
      this.stop = this.step + limit + 1;
      return this.applyInput(due.value, false, true);
    }
    // A start chosen by the parent (time travel into this subgraph) is a replay: it forks.
    const latest = startAt ? false : await this.persistence.isLatest(tuple);
    if (!latest) this.replay = { from: tuple.checkpoint.id, started: newCheckpointId() };
    else if (tuple.metadata.source === "update") {
      // An update that forked the thread from a past checkpoint: its stateful subgraphs take
      // their state as of that checkpoint, not the later one the thread went on to.
      const from = await this.persistence.forkedFrom(tuple);
      if (from !== undefined) this.replay = { from, started: newCheckpointId() };
    }
    const resumes = command?.hasResume() === true;
    // As LangGraph.js: the latest checkpoint's pending writes are the finished tasks of an
    // interrupted step, reused. A resume addressed to a past checkpoint continues from it (a new
    // branch, no fork) and runs its tasks again, with the resume values they were already given
    // and the new one. Any other run from the past forks and runs its step afresh.
    if ((latest || resumes) && tuple.pendingWrites.length > 0) {
      this.saved = groupPendingWrites(tuple.pendingWrites);
      this.reuseWrites = latest;
      // The step goes on from those writes: the next checkpoint is built from them all.
      if (latest && this.persistence.delta) this.persistence.delta.unrecorded = false;
    } else if (resumes) this.saved = new Map();
    this.skipInterruptBefore = true;
    if (resumes) this.resume = { value: command!.resume };
    this.options.hooks.values?.(this.stateView());
    // As LangGraph.js: a resumed run may take `limit` steps after the checkpoint's next one.
    this.stop = this.step + limit + 2;
    if (!latest && !resumes) {
      this.step += 1;
      this.stop += 1;
      await this.save("fork", null);
    }
    if (command && (command.update !== undefined || command.goto.length > 0))
      await this.applyInput(command, true, false, resumes);
  }

  /** Writes the input (or a Command's update and goto) as the START pseudo-task: step 0 of the run. */
  private async applyInput(
    input: unknown,
    isCommandInput: boolean,
    alreadySaved = false,
    resuming = false,
  ): Promise<void> {
    // Held: the input checkpoint waits in the saver's queue and commits with step 0's, one
    // transaction instead of two (both rows as before). Only the input's own writes and routing
    // run in between: a START branch that waits, or an error, commits it first (`release`).
    let held = false;
    if (this.checkpointing && !isCommandInput && !alreadySaved) {
      // A new input on a paused thread starts over from START: the tasks the pause left pending
      // are dropped (their triggers consumed), as in LangGraph.js.
      const stale = this.nextTasks();
      if (stale.length > 0) applyTasks(this, stale);
      held = !this.trace && this.persistence.canHoldInput;
      await this.save("input", { [START]: input }, false, held);
    }
    if (!held) return this.startInput(input, isCommandInput, resuming, false);
    try {
      await this.startInput(input, isCommandInput, resuming, true);
    } catch (error) {
      const release = this.persistence.releaseHeld();
      if (release) await release;
      throw error;
    }
  }

  /** `applyInput` once the input is saved: START's writes applied as step 0, saved. */
  private async startInput(
    input: unknown,
    isCommandInput: boolean,
    resuming: boolean,
    held: boolean,
  ): Promise<void> {
    const task = new Task(startNode(this.spec), "pull", 0, input, {
      checkpointId: this.persistence.checkpointId,
      ns: this.persistence.ns,
      step: this.step + 1,
    });
    if (isCommandInput) {
      const command = input as Command;
      if (command.update !== undefined) {
        writeUpdate(this, task, START, command.update);
        // Not saved as a task's writes: a delta key it changed is snapshotted next.
        if (this.persistence.delta) this.persistence.delta.unrecorded = true;
      }
      if (command.goto.length > 0)
        writeRoute(this, task, START, command.goto, undefined, "The Command goto");
    } else {
      if (input === undefined || input === null)
        throw new KeelError("EMPTY_INPUT", "The graph received no input.", {
          hint: "Pass an input object.",
        });
      if (this.trace && !this.spec.functional) await this.traceStart(task, input);
      else {
        writeUpdate(this, task, START, input);
        const routed = routeFromStart(this, task);
        if (routed) {
          if (held) {
            const release = this.persistence.releaseHeld();
            if (release) await release;
          }
          await routed;
        }
      }
    }
    // A saver not Keel's own gets START's writes against the input checkpoint, as LangGraph.js
    // saves its `__start__` task's (Keel's SQL savers keep the input in that checkpoint's metadata).
    if (this.checkpointing && !isCommandInput && !this.persistence.ordered)
      this.persistence.taskFinished(this, task);
    applyTasks(this, [task]);
    // A Command that also resumes updates the state the interrupted tasks run again on, in place,
    // as LangGraph.js does: a new checkpoint here would give those tasks new ids, and they would
    // no longer find their resume values (nor the finished tasks their saved writes).
    if (resuming) return;
    this.step += 1;
    // As after a step: an input that changed no state key (`{}`) shows no values.
    const values = this.options.hooks.values;
    if (values && this.stateUpdated) values(this.stateView());
    if (this.checkpointing) {
      await this.save(
        isCommandInput ? "update" : "loop",
        isCommandInput ? { [START]: (input as Command).update ?? null } : null,
      );
      const saved = this.persistence.stepSaved();
      if (saved) await saved;
    }
  }

  /** The START pseudo-task of a traced run, as LangGraph.js's hidden `__start__` task run. */
  private async traceStart(task: Task, input: unknown): Promise<void> {
    const trace = this.trace!;
    const ns = this.persistence.ns;
    const taskNs = `${ns ? `${ns}|` : ""}${START}:${task.taskId}`;
    const metadata = {
      ...this.config.metadata,
      langgraph_step: task.step,
      langgraph_node: START,
      langgraph_triggers: [START],
      langgraph_path: task.path,
      langgraph_checkpoint_ns: taskNs,
      checkpoint_ns: taskNs,
    };
    const config: RunConfig = {
      ...this.config,
      callbacks: trace.taskCallbacks(task.step),
      tags: [TAG_HIDDEN],
      metadata,
    };
    await trace.chain(config, START, input, async (child) => {
      task.config = child;
      writeUpdate(this, task, START, input);
      const routed = routeFromStart(this, task);
      if (routed) await routed;
      return input;
    });
  }

  /**
   * Runs super-steps until nothing is triggered, an interrupt, or an error, then settles what the
   * run's durability still owes the saver (see `RunPersistence.finish`).
   */
  async run(): Promise<LoopOutcome> {
    if (!this.checkpointing) return this.steps();
    let outcome: LoopOutcome;
    try {
      outcome = await this.steps();
    } catch (error) {
      // The run's own error is what the caller needs; a failing save must not replace it.
      await this.persistence.finish(this, "error").catch(() => {});
      throw error;
    }
    await this.persistence.finish(this, outcome.interrupts ? "interrupt" : "end");
    return outcome;
  }

  private async steps(): Promise<LoopOutcome> {
    const runSignal = this.runSignal;
    const { stepTimeout } = this.options;
    let signal = runSignal;
    const { hooks, interruptBefore: before, interruptAfter: after } = this.options;
    for (;;) {
      if (runSignal?.aborted) throw abortError(runSignal);
      const next = this.step + 1;
      // Checked before looking for work, as LangGraph.js does: a chain of N nodes needs N + 1.
      if (next > this.stop) throw new GraphRecursionError(this.config.recursionLimit ?? 25);
      const tasks = this.nextTasks();
      if (tasks.length === 0) return { interrupts: undefined };
      // Drained between steps: what finished is saved (see run), nothing new starts.
      if (this.control.drainRequested) throw new GraphDrained(this.control.drainReason!);
      if (
        before.size > 0 &&
        !this.skipInterruptBefore &&
        tasks.some((t) => before.has(t.node.name))
      ) {
        requireSaver(this.options.saver, "interruptBefore");
        return this.pause([]);
      }
      this.skipInterruptBefore = false;
      if (this.saved) {
        reuseSavedWrites(this.spec, tasks, this.saved, this.resume, this.reuseWrites);
        this.saved = undefined;
        this.resume = undefined;
      }
      if (hooks.debug)
        for (const task of tasks) hooks.debug(debugTask(this.spec, this.channels, next, task));
      if (hooks.messages) for (const task of tasks) hooks.messages.nodeStart(task.input);
      if (stepTimeout !== undefined) {
        const timeout = AbortSignal.timeout(stepTimeout);
        signal = runSignal ? AbortSignal.any([runSignal, timeout]) : timeout;
        this.stepSignal = signal;
      }
      this.firstFailure = undefined;
      this.siblings = siblingsOf(tasks);
      if (this.siblings) {
        // Nodes of this step see a signal that also fires when another of its tasks fails.
        const own = this.siblings.signal;
        this.stepSignal = signal ? AbortSignal.any([signal, own]) : own;
      } else if (stepTimeout === undefined) this.stepSignal = undefined;

      const running = this.execute(
        tasks,
        hooks.updates !== undefined || hooks.values !== undefined || hooks.messages !== undefined,
        signal,
      );
      if (running) {
        await running;
        this.lateFinished(signal);
      }

      // The first task that failed decides the error (not siblings it cancelled).
      let failed: Task | undefined = this.firstFailure;
      let interrupts: Interrupt[] | undefined;
      for (const task of tasks) {
        if (task.failed && !failed) failed = task;
        if (task.interrupts) interrupts = (interrupts ?? []).concat(task.interrupts);
      }
      if (this.checkpointing) {
        const settling = this.persistence.settleStep();
        if (settling) {
          await settling;
          this.persistence.settled(settling);
        }
      }
      if (failed) throw nodeError(failed);
      if (interrupts) {
        // A thrown NodeInterrupt stops a run without a saver too (nothing to resume), as in
        // LangGraph.js; interrupt() needs one, its run is resumed with the answer.
        if (this.options.saver || tasks.some((t) => t.interrupts && !t.nodeInterrupt))
          requireSaver(this.options.saver, "interrupt()");
        // The finished tasks' writes show in the result (as in LangGraph.js) but stay pending.
        if (this.checkpointing) this.persistence.holdUnsaved(this);
        applyTasks(
          this,
          tasks.filter((t) => !t.interrupts),
        );
        // As LangGraph.js, the outermost graph streams those writes applied before it pauses.
        if (!this.nested && hooks.values && this.stateUpdated) hooks.values(this.stateView());
        return this.pause(interrupts);
      }
      applyTasks(this, tasks);
      this.step = next;
      if (hooks.debug) for (const task of tasks) hooks.debug(debugResult(this.spec, next, task));
      if (hooks.messages)
        streamNodeMessages(this.spec, hooks.messages, next, tasks, this.persistence.ns);
      if (hooks.values && this.stateUpdated) hooks.values(this.stateView());
      if (this.checkpointing) {
        const saving = this.save("loop", writesOf(tasks));
        if (saving) await saving;
        const saved = this.persistence.stepSaved();
        if (saved) await saved;
      }
      // Even with nothing left to run, as LangGraph.js: the caller sees the pause it asked for.
      if (after.size > 0 && tasks.some((t) => after.has(t.node.name))) {
        requireSaver(this.options.saver, "interruptAfter");
        return this.pause([]);
      }
    }
  }

  /**
   * Ends the run paused. Tasks that paused said so as they finished (`streamInterrupts`); a pause
   * without interrupt values (interruptBefore/After, or a subgraph's) is announced as
   * `{ __interrupt__: [] }` by the outermost graph only, as LangGraph.js does.
   */
  private pause(interrupts: Interrupt[]): LoopOutcome {
    if (interrupts.length === 0 && !this.nested) {
      this.options.hooks.updates?.({ [INTERRUPT]: interrupts });
      this.options.hooks.values?.({ [INTERRUPT]: interrupts });
    }
    return { interrupts };
  }

  /** The run's result: the state, plus `__interrupt__` when it paused. */
  output(outcome: LoopOutcome): Record<string, unknown> {
    const state = this.stateView();
    return outcome.interrupts ? { ...state, [INTERRUPT]: outcome.interrupts } : state;
  }

  /**
   * Runs a step's tasks concurrently. Synchronous nodes finish inside the loop below, so a step
   * of them awaits nothing; `doneSeq` records the order tasks finished (for the updates stream).
   */
  private execute(
    tasks: Task[],
    trackOrder: boolean,
    signal: AbortSignal | undefined,
  ): Promise<unknown> | undefined {
    const limit = this.config.maxConcurrency;
    if (limit !== undefined && tasks.length > limit)
      return this.executeLimited(tasks, limit, signal);
    let waits: Array<Promise<void>> | undefined;
    // The one task still running, when only one is (an agent's every step): the step awaits it
    // directly and `lateFinished` does what a `then` on it would (no `then`, no `Promise.all`).
    let lone: Task | undefined;
    let lonePending: Promise<void> | undefined;
    let finished = 0;
    const persistence = this.checkpointing ? this.persistence : undefined;
    // The updates stream shows each task as it finishes (as LangGraph.js's): a reader sees a
    // fast node's update while a slow one still runs. Tasks replayed from saved writes first.
    const hooks = this.options.hooks;
    const updates = hooks.updates;
    if (updates) for (const task of tasks) if (task.cached) streamUpdate(updates, task);
    // Updates of the tasks that finish at once go after their pauses, as in LangGraph.js (where
    // a thrown interrupt settles sooner than a returned update).
    let finishedAtOnce: Task[] | undefined;
    for (const task of tasks) {
      if (task.cached) continue;
      const pending = executeTask(this, task);
      if (!pending) {
        task.doneSeq = finished++;
        persistence?.taskFinished(this, task);
        if (task.interrupts) streamInterrupts(hooks, task);
        else if (updates) {
          finishedAtOnce ??= [];
          finishedAtOnce.push(task);
        }
        continue;
      }
      if (waits === undefined && lone === undefined) {
        lone = task;
        lonePending = pending;
        continue;
      }
      const seq = () => finished++;
      if (waits === undefined) {
        waits = [this.whenFinished(lone!, lonePending!, trackOrder, signal, seq)];
        lone = undefined;
      }
      waits.push(this.whenFinished(task, pending, trackOrder, signal, seq));
    }
    if (finishedAtOnce && updates) for (const task of finishedAtOnce) streamUpdate(updates, task);
    if (lone !== undefined && lonePending !== undefined) {
      this.late = trackOrder || persistence ? lone : undefined;
      this.lateSeq = finished;
      return signal ? raceAbort(lonePending, signal) : lonePending;
    }
    if (!waits) return undefined;
    return signal ? raceAbort(Promise.all(waits), signal) : Promise.all(waits);
  }

  /** `pending`, then what a task does as it finishes (see `taskDone`), when anything is to do. */
  private whenFinished(
    task: Task,
    pending: Promise<void>,
    trackOrder: boolean,
    signal: AbortSignal | undefined,
    seq: () => number,
  ): Promise<void> {
    if (!trackOrder && !this.checkpointing) return pending;
    return pending.then(() => this.taskDone(task, seq(), signal));
  }

  /** The lone task `execute` left running, now finished: what a `then` on it would have done. */
  private lateFinished(signal: AbortSignal | undefined): void {
    const task = this.late;
    if (task === undefined) return;
    this.late = undefined;
    this.taskDone(task, this.lateSeq, signal);
  }

  /**
   * A task that finished after `execute` returned: saved as soon as it finishes, not when the
   * whole step does; a task that finishes after the run was cancelled is not saved (as
   * LangGraph.js): the thread stays at its last good state and the task runs again.
   */
  private taskDone(task: Task, seq: number, signal: AbortSignal | undefined): void {
    task.doneSeq = seq;
    if (signal?.aborted) return;
    if (this.checkpointing) this.persistence.taskFinished(this, task);
    const hooks = this.options.hooks;
    if (task.interrupts) streamInterrupts(hooks, task);
    else if (hooks.updates) streamUpdate(hooks.updates, task);
  }

  /**
   * `execute` with at most `limit` tasks running at once (`maxConcurrency`): `limit` workers each
   * take the next task not started yet when their current one finishes.
   */
  private executeLimited(
    tasks: Task[],
    limit: number,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    let started = 0;
    let finished = 0;
    const persistence = this.checkpointing ? this.persistence : undefined;
    const worker = async (): Promise<void> => {
      while (started < tasks.length) {
        const task = tasks[started++]!;
        if (task.cached) continue;
        const pending = executeTask(this, task);
        if (pending) await pending;
        task.doneSeq = finished++;
        if (signal?.aborted) continue;
        persistence?.taskFinished(this, task);
        streamInterrupts(this.options.hooks, task);
      }
    };
    const all = Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
    return signal ? raceAbort(all, signal) : all;
  }

  /** Saves a checkpoint; returns what to wait for (undefined when nothing: no await per step). */
  private save(
    source: CheckpointMetadata["source"],
    writes: Record<string, unknown> | null,
    forceSync = false,
    hold = false,
  ): Promise<unknown> | undefined {
    const saving = this.persistence.save(this, source, writes, forceSync, hold);
    if (!this.options.hooks.debug) return saving;
    if (!saving) return this.debugCheckpoint(source);
    return saving.then(() => this.debugCheckpoint(source));
  }

  /** The checkpoint just saved, as `getState` would show it (LangGraph.js's debug payload). */
  private debugCheckpoint(source: CheckpointMetadata["source"]): undefined {
    const config = this.persistence.config;
    const tasks: StateTask[] =
      source === "input"
        ? [
            {
              id: `${config.configurable?.checkpoint_id}:start`,
              name: START,
              path: ["__pregel_pull", START],
              interrupts: [],
            },
          ]
        : byNodeOrder(this.peekTasks()).map((task) => ({
            id: task.taskId,
            name: task.node.name,
            path: task.path,
            interrupts: [],
          }));
    this.options.hooks.debug?.({
      step: this.step,
      type: "checkpoint",
      timestamp: this.persistence.savedTs,
      payload: {
        config,
        parentConfig: this.persistence.savedParent,
        values: this.stateView(),
        metadata: this.persistence.savedMetadata,
        next: tasks.map((task) => task.name),
        tasks,
      },
    });
    return undefined;
  }
}

import type {
  BaseCheckpointSaver,
  CheckpointConfig,
  CheckpointMetadata,
  CheckpointTuple,
} from "../../checkpoint/base/index.js";
import { KeelError } from "../../core/index.js";
import type { RunConfig } from "../types.js";
import { makeCheckpoint, taskPendingWrites } from "./checkpointing.js";
import type { RunState } from "./run-state.js";
import type { Task } from "./task.js";

/** The checkpointer side of a run: where it saves, and the checkpoint it is at. */
export class RunPersistence {
  /** Config of the current checkpoint (its `checkpoint_id` is the parent of the next one). */
  config: CheckpointConfig;
  /** Id of the current checkpoint; "" before the first is saved. Task ids derive from it. */
  checkpointId = "";

  constructor(
    readonly saver: BaseCheckpointSaver | undefined,
    readonly ns: string,
    private readonly run: RunConfig,
  ) {
    const configurable = { ...run.configurable, checkpoint_ns: ns };
    delete configurable.checkpoint_id;
    this.config = { configurable };
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
  }

  /** Saves each task's writes against the current checkpoint, before the step's checkpoint. */
  async saveTaskWrites(state: RunState, tasks: Task[]): Promise<void> {
    const config = {
      configurable: { ...this.config.configurable, checkpoint_id: this.checkpointId },
    };
    for (const task of tasks) {
      if (task.cached) continue;
      await this.saver!.putWrites(config, taskPendingWrites(state.spec, task), task.taskId);
    }
  }

  /** Saves the run's state as a new checkpoint (only the channels changed since the last one). */
  async save(
    state: RunState,
    source: CheckpointMetadata["source"],
    writes: Record<string, unknown> | null,
  ): Promise<{ metadata: CheckpointMetadata; ts: string }> {
    const checkpoint = makeCheckpoint(state.spec, state);
    const newVersions: Record<string, number> = {};
    const changed = this.checkpointId === "" ? state.versions.keys() : state.dirty!;
    for (const index of changed) {
      if (state.channels[index]!.has())
        newVersions[state.spec.channelNames[index]!] = state.versions[index]!;
    }
    state.dirty!.clear();
    const metadata: CheckpointMetadata = {
      source,
      step: state.step,
      parents: {},
      writes,
      ...this.run.metadata,
    };
    const threadId = this.config.configurable?.thread_id;
    if (threadId !== undefined) metadata.thread_id = threadId;
    this.config = await this.saver!.put(this.config, checkpoint, metadata, newVersions);
    this.checkpointId = checkpoint.id;
    return { metadata, ts: checkpoint.ts };
  }
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

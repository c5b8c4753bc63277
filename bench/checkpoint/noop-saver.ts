/**
 * A saver that stores nothing: `put` answers the config of the checkpoint it was given and
 * nothing else happens. The chain on it costs what Keel's engine costs per step with
 * checkpointing on (making the checkpoint, its id, its metadata, the task writes) and no saver
 * work at all, so the bench can split a durable step into the engine's share and the saver's.
 */
import {
  BaseCheckpointSaver,
  type Checkpoint,
  type CheckpointConfig,
  type CheckpointTuple,
  ORDERED_SAVES,
} from "../../src/checkpoint/index.js";

export class NoopSaver extends BaseCheckpointSaver {
  readonly [ORDERED_SAVES] = true;

  getTuple(): Promise<CheckpointTuple | undefined> {
    return Promise.resolve(undefined);
  }

  async *list(): AsyncGenerator<CheckpointTuple> {}

  put(config: CheckpointConfig, checkpoint: Checkpoint): Promise<CheckpointConfig> {
    return Promise.resolve({
      configurable: {
        thread_id: config.configurable?.thread_id,
        checkpoint_ns: config.configurable?.checkpoint_ns ?? "",
        checkpoint_id: checkpoint.id,
      },
    });
  }

  putWrites(): Promise<void> {
    return DONE;
  }

  deleteThread(): Promise<void> {
    return DONE;
  }
}

const DONE: Promise<void> = Promise.resolve();

import { toKeelError } from "../../core/index.js";
import type { DurableSaver } from "./durable-saver.js";

/** A thread whose latest checkpoint (in one namespace) cannot be read, and why. */
export interface UnreadableThread {
  readonly threadId: string;
  readonly checkpointNs: string;
  readonly code: string;
  readonly message: string;
}

/**
 * Reads the latest checkpoint of every thread and namespace, as a resume would (values, delta
 * chains, pending writes, row hashes), and returns those that fail: what `keel doctor` reports
 * as unreadable threads (a restore or reset under a live run, a damaged row). Changes nothing.
 *
 * @example
 * const broken = await unreadableThreads(SqliteSaver.fromStore(store));
 */
export async function unreadableThreads(saver: DurableSaver): Promise<UnreadableThread[]> {
  const places = await saver.sql.all<{ thread_id: string; checkpoint_ns: string }>(
    "SELECT DISTINCT thread_id, checkpoint_ns FROM state_checkpoints ORDER BY thread_id, checkpoint_ns",
    [],
  );
  const broken: UnreadableThread[] = [];
  for (const place of places) {
    try {
      await saver.getTuple({
        configurable: { thread_id: place.thread_id, checkpoint_ns: place.checkpoint_ns },
      });
    } catch (error) {
      const keel = toKeelError(error);
      broken.push({
        threadId: place.thread_id,
        checkpointNs: place.checkpoint_ns,
        code: keel.code,
        message: keel.message,
      });
    }
  }
  return broken;
}

/**
 * A channel holds one piece of graph state between super-steps and decides how the writes of one
 * step combine. State keys are channels; so are the engine's triggers (edges, joins, `Send`s).
 *
 * Channels are mutable and owned by one run; `snapshot`/`restore` move their value in and out
 * of checkpoints.
 */
export interface Channel {
  /** True when the channel has a value. */
  has(): boolean;
  /** The current value (undefined when empty). */
  get(): unknown;
  /**
   * Applies one write. `firstInStep` is false when the channel was already written in this step,
   * which a last-value channel refuses. `writer` names the node for error messages.
   */
  write(value: unknown, firstInStep: boolean, writer: string): void;
  /**
   * Combines `value` into a local copy (`current`) without touching the channel: what a
   * conditional edge sees of its own node's writes.
   */
  fold(current: unknown, hasCurrent: boolean, value: unknown, writer: string): unknown;
  /** Marks the value as used by the node it triggered; returns true when that changed it. */
  consume(): boolean;
  /** The value to store in a checkpoint (only called when `has()`). */
  snapshot(): unknown;
  /** Loads a value written by `snapshot`. */
  restore(value: unknown): void;
}

/** Makes a fresh, empty channel of a given kind; the compiled graph keeps one per channel name. */
export type ChannelFactory = () => Channel;
